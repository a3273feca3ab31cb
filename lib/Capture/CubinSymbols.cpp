//===- CubinSymbols.cpp - kernels and globals of a cubin image ------------===//
#include "cudal1/Capture/CubinSymbols.h"

#include <cstring>

namespace cudal1 {
namespace capture {

namespace {
// ELF64 structures, spelled out so that no <elf.h> is needed.
struct Ehdr {
  unsigned char Ident[16];
  uint16_t Type, Machine;
  uint32_t Version;
  uint64_t Entry, Phoff, Shoff;
  uint32_t Flags;
  uint16_t Ehsize, Phentsize, Phnum, Shentsize, Shnum, Shstrndx;
};
struct Shdr {
  uint32_t Name, Type;
  uint64_t Flags, Addr, Offset, Size;
  uint32_t Link, Info;
  uint64_t Addralign, Entsize;
};
struct Sym {
  uint32_t Name;
  unsigned char Info, Other;
  uint16_t Shndx;
  uint64_t Value, Size;
};
static_assert(sizeof(Ehdr) == 64, "ELF64 header");
static_assert(sizeof(Shdr) == 64, "ELF64 section header");
static_assert(sizeof(Sym) == 24, "ELF64 symbol");

constexpr uint32_t SHT_PROGBITS = 1;
constexpr uint32_t SHT_SYMTAB = 2;
constexpr unsigned STT_OBJECT = 1, STT_FUNC = 2;
constexpr uint16_t SHN_LORESERVE = 0xff00;
} // namespace

bool looksLikeElf64(const void *Data, size_t Size) {
  const auto *P = static_cast<const unsigned char *>(Data);
  return Data && Size >= sizeof(Ehdr) && P[0] == 0x7f && P[1] == 'E' &&
         P[2] == 'L' && P[3] == 'F' && P[4] == 2 /*ELFCLASS64*/ &&
         P[5] == 1 /*little endian*/;
}

template <typename T>
static bool readAt(const unsigned char *Base, size_t Size, uint64_t Off, T &Out) {
  if (Off > Size || Size - Off < sizeof(T))
    return false;
  std::memcpy(&Out, Base + Off, sizeof(T));
  return true;
}

/// NUL-terminated string at \p Off of the string table section \p S.
static bool stringAt(const unsigned char *Base, size_t Size, const Shdr &S,
                     uint32_t Off, std::string &Out) {
  if (S.Offset > Size || S.Size > Size - S.Offset || Off >= S.Size)
    return false;
  const char *B = reinterpret_cast<const char *>(Base + S.Offset + Off);
  size_t Max = S.Size - Off;
  size_t Len = strnlen(B, Max);
  if (Len == Max)
    return false;
  Out.assign(B, Len);
  return true;
}

bool readCubinSymbols(const void *Data, size_t Size, CubinSymbols &Out,
                      std::string &Error) {
  Out = CubinSymbols();
  if (!looksLikeElf64(Data, Size)) {
    Error = "not an ELF64 image";
    return false;
  }
  const auto *Base = static_cast<const unsigned char *>(Data);
  Ehdr H;
  readAt(Base, Size, 0, H);
  if (H.Shentsize != sizeof(Shdr) || H.Shnum == 0 || H.Shstrndx >= H.Shnum) {
    Error = "unexpected ELF section header layout";
    return false;
  }
  std::vector<Shdr> Sections(H.Shnum);
  for (unsigned I = 0; I < H.Shnum; ++I)
    if (!readAt(Base, Size, H.Shoff + uint64_t(I) * sizeof(Shdr), Sections[I])) {
      Error = "section header table out of bounds";
      return false;
    }
  std::vector<std::string> SectionNames(H.Shnum);
  for (unsigned I = 0; I < H.Shnum; ++I)
    stringAt(Base, Size, Sections[H.Shstrndx], Sections[I].Name,
             SectionNames[I]);
  bool SawSymtab = false;
  std::vector<std::string> SymbolNames; // by symbol index
  for (unsigned SI = 0; SI < H.Shnum; ++SI) {
    const Shdr &ST = Sections[SI];
    if (ST.Type != SHT_SYMTAB)
      continue;
    SawSymtab = true;
    if (ST.Entsize != sizeof(Sym) || ST.Link >= H.Shnum ||
        ST.Offset > Size || ST.Size > Size - ST.Offset) {
      Error = "symbol table out of bounds";
      return false;
    }
    const Shdr &Strtab = Sections[ST.Link];
    for (uint64_t Off = 0; Off + sizeof(Sym) <= ST.Size; Off += sizeof(Sym)) {
      Sym S;
      readAt(Base, Size, ST.Offset + Off, S);
      std::string SymName;
      stringAt(Base, Size, Strtab, S.Name, SymName);
      SymbolNames.push_back(SymName);
      unsigned Type = S.Info & 0xf;
      if ((Type != STT_FUNC && Type != STT_OBJECT) || S.Shndx == 0 ||
          S.Shndx >= SHN_LORESERVE || S.Shndx >= H.Shnum)
        continue;
      std::string Name;
      if (!stringAt(Base, Size, Strtab, S.Name, Name) || Name.empty() ||
          Name[0] == '.')
        continue;
      const std::string &Sec = SectionNames[S.Shndx];
      if (Type == STT_FUNC) {
        // Kernels have their own .text.<name> section; device functions
        // that were not inlined live in .text.<name> too but carry no
        // .nv.info.<name>: keep every .text symbol, callers look names up.
        if (Sec == ".text." + Name)
          Out.Kernels.push_back(Name);
        continue;
      }
      bool Global = Sec.rfind(".nv.global", 0) == 0;
      bool Constant = Sec.rfind(".nv.constant", 0) == 0 &&
                      Sec.size() > 12 && Sec[12] >= '1' && Sec[12] <= '9';
      if (!Global && !Constant)
        continue;
      Out.Globals.push_back({Name, S.Size, Sec});
    }
  }
  if (!SawSymtab) {
    Error = "no symbol table";
    return false;
  }
  for (unsigned SI = 0; SI < H.Shnum; ++SI) {
    const Shdr &S = Sections[SI];
    const std::string &Name = SectionNames[SI];
    if (Name.rfind(".text.", 0) != 0 || Name.size() == 6 ||
        S.Type != SHT_PROGBITS || S.Offset > Size || S.Size > Size - S.Offset)
      continue;
    Out.Code[Name.substr(6)].assign(
        reinterpret_cast<const char *>(Base + S.Offset), S.Size);
  }
  // .nv.info: a sequence of attributes, each a format byte and an attribute
  // byte; EIFMT_SVAL (4) is followed by a 2-byte size and that many bytes,
  // EIFMT_HVAL (3) by a 2-byte value, EIFMT_NVAL (1) by nothing.
  // EIATTR_REGCOUNT (0x2f, SVAL of 8 bytes) holds a symbol index and the
  // function's register count.
  for (unsigned SI = 0; SI < H.Shnum; ++SI) {
    const Shdr &S = Sections[SI];
    if (SectionNames[SI] != ".nv.info" || S.Offset > Size ||
        S.Size > Size - S.Offset)
      continue;
    const unsigned char *B = Base + S.Offset;
    for (uint64_t I = 0; I + 2 <= S.Size;) {
      unsigned char Fmt = B[I], Attr = B[I + 1];
      if (Fmt == 4) {
        uint16_t N;
        if (I + 4 > S.Size)
          break;
        std::memcpy(&N, B + I + 2, 2);
        if (Attr == 0x2f && N == 8 && I + 12 <= S.Size) {
          uint32_t SymIdx, Count;
          std::memcpy(&SymIdx, B + I + 4, 4);
          std::memcpy(&Count, B + I + 8, 4);
          if (SymIdx < SymbolNames.size() && !SymbolNames[SymIdx].empty())
            Out.Registers[SymbolNames[SymIdx]] = Count;
        }
        I += 4 + uint64_t(N);
      } else if (Fmt == 3) {
        I += 4;
      } else {
        I += 2;
      }
    }
  }
  return true;
}

} // namespace capture
} // namespace cudal1

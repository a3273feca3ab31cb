//===- ExtractData.cpp - manifest, kernel replacement, file names ---------===//
#include "cudal1/Extract/Extract.h"

using namespace llvm;

namespace cudal1 {

std::string replaceKernel(const ExtractedKernel &K,
                          StringRef NewKernelDefinition) {
  size_t B = std::min(K.KernelBegin, K.Source.size());
  size_t E = std::min(std::max(K.KernelEnd, B), K.Source.size());
  std::string Out = K.Source.substr(0, B);
  Out += NewKernelDefinition.str();
  Out += K.Source.substr(E);
  return Out;
}

std::string kernelFileStem(StringRef QualifiedName) {
  std::string S;
  for (size_t I = 0; I < QualifiedName.size(); ++I) {
    char C = QualifiedName[I];
    if (C == ':' && I + 1 < QualifiedName.size() &&
        QualifiedName[I + 1] == ':') {
      S += "__";
      ++I;
    } else if (isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '-') {
      S += C;
    } else {
      S += '_';
    }
  }
  if (S.empty())
    S = "kernel";
  return S;
}

static json::Value locJson(const SourceLoc &L) {
  return json::Object{{"file", L.File}, {"line", L.Line}, {"column", L.Column}};
}

static json::Value paramJson(const ParamInfo &P) {
  json::Object O{{"index", P.Index},
                 {"name", P.Name},
                 {"type", P.Type},
                 {"pointer", P.IsPointer},
                 {"reference", P.IsReference},
                 {"pointee_const", P.PointeeConst},
                 {"restrict", P.Restrict},
                 {"const", P.IsConst},
                 {"element_type", P.ElementType}};
  if (P.SizeBytes)
    O["size"] = int64_t(*P.SizeBytes);
  if (P.AlignBytes)
    O["align"] = int64_t(*P.AlignBytes);
  if (P.ElementSizeBytes)
    O["element_size"] = int64_t(*P.ElementSizeBytes);
  return O;
}

json::Value extractManifest(const ExtractedKernel &K,
                            StringRef SourceFileName) {
  json::Array Exprs, Params, Pieces, Problems, Includes, Notes;
  for (const auto &E : K.NameExprs)
    Exprs.push_back(E);
  for (const auto &P : K.Params)
    Params.push_back(paramJson(P));
  for (const auto &P : K.Pieces) {
    json::Object O{{"what", P.What}};
    if (P.Begin.File.empty()) {
      O["synthesized"] = true;
    } else {
      O["file"] = P.Begin.File;
      O["begin"] =
          json::Object{{"line", P.Begin.Line}, {"column", P.Begin.Column}};
      O["end"] = json::Object{{"line", P.End.Line}, {"column", P.End.Column}};
    }
    Pieces.push_back(std::move(O));
  }
  for (const auto &P : K.Problems)
    Problems.push_back(P);
  for (const auto &I : K.Includes)
    Includes.push_back(I);
  for (const auto &N : K.Notes)
    Notes.push_back(N);
  return json::Object{
      {"kernel", K.Kernel},
      {"source", SourceFileName},
      {"translation_unit", K.TranslationUnit},
      {"definition", json::Object{{"begin", locJson(K.KernelRange.Begin)},
                                  {"end", locJson(K.KernelRange.End)}}},
      {"template", K.IsTemplate},
      {"name_expression", K.NameExpr},
      {"name_expressions", std::move(Exprs)},
      {"kernel_offset", json::Object{{"begin", int64_t(K.KernelBegin)},
                                     {"end", int64_t(K.KernelEnd)}}},
      {"parameters", std::move(Params)},
      {"includes", std::move(Includes)},
      {"pieces", std::move(Pieces)},
      {"notes", std::move(Notes)},
      {"problems", std::move(Problems)},
  };
}

} // namespace cudal1

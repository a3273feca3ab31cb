// Sequence and string kernels: Smith-Waterman with affine gaps (one block
// per sequence pair, one thread per query residue, the anti-diagonal
// wavefront passed through double-buffered shared rows), canonical k-mer
// counting into an open-addressing table with atomicCAS, exact pattern
// search with the pattern in constant memory and the text staged in shared
// memory, 2-bit packing of ASCII bases with 16-byte loads, reverse
// complement of packed sequences, and per-read GC and quality statistics
// with SIMD byte intrinsics: no finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>
#include <cstdint>

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarp = 32;

// ---------------------------------------------------------------------------
// Local alignment score (Gotoh) of query/target pairs, one block per pair.
// Thread i owns query residue i (queries of at most kSwThreads residues) and
// computes cell (i, j) at step d = i + j: E and H(i, j-1) stay in its
// registers, H(i-1, j) and F(i-1, j) come from thread i-1's slot of the
// previous step's buffer, and H(i-1, j-1) is the H(i-1, .) it read one step
// earlier. The substitution matrix and the target are staged in shared
// memory; one barrier per anti-diagonal.
constexpr int kSwThreads = 256, kMaxTarget = 2048, kAlphabet = 24;
constexpr int kNegInf = -(1 << 28);

__global__ void __launch_bounds__(kSwThreads)
    smith_waterman(const uint8_t *__restrict__ q_res,
                   const int *__restrict__ q_off,
                   const uint8_t *__restrict__ t_res,
                   const int *__restrict__ t_off,
                   const int8_t *__restrict__ subst, int gap_open,
                   int gap_extend, int *__restrict__ best_score) {
  __shared__ int s_sub[kAlphabet * kAlphabet];
  __shared__ uint8_t s_target[kMaxTarget];
  __shared__ int s_h[2][kSwThreads + 1], s_f[2][kSwThreads + 1];
  __shared__ int s_best[kSwThreads / kWarp];
  const int pair = blockIdx.x, i = threadIdx.x;
  const int qbeg = q_off[pair], qlen = q_off[pair + 1] - qbeg;
  const int tbeg = t_off[pair], tlen = t_off[pair + 1] - tbeg;
  for (int k = i; k < kAlphabet * kAlphabet; k += kSwThreads)
    s_sub[k] = subst[k];
  for (int j = i; j < tlen; j += kSwThreads)
    s_target[j] = t_res[tbeg + j];
  if (i < 2) { // row 0: H = 0, F = -inf, for both buffers
    s_h[i][0] = 0;
    s_f[i][0] = kNegInf;
  }
  const bool active = i < qlen;
  const int qrow = active ? q_res[qbeg + i] * kAlphabet : 0;
  int h_left = 0, h_diag = 0, e = kNegInf, best = 0;
  __syncthreads();
  for (int d = 0; d < qlen + tlen - 1; ++d) {
    const int j = d - i, cur = d & 1;
    if (active && j >= 0 && j < tlen) {
      const int h_up = s_h[cur ^ 1][i], f_up = s_f[cur ^ 1][i];
      e = max(e - gap_extend, h_left - gap_open);
      const int f = max(f_up - gap_extend, h_up - gap_open);
      const int h =
          max(max(h_diag + s_sub[qrow + s_target[j]], 0), max(e, f));
      s_h[cur][i + 1] = h;
      s_f[cur][i + 1] = f;
      h_diag = h_up;
      h_left = h;
      best = max(best, h);
    }
    __syncthreads();
  }
#pragma unroll
  for (int off = kWarp / 2; off > 0; off >>= 1)
    best = max(best, __shfl_xor_sync(kFullMask, best, off));
  if (i % kWarp == 0)
    s_best[i / kWarp] = best;
  __syncthreads();
  if (i < kWarp) {
    best = i < kSwThreads / kWarp ? s_best[i] : 0;
#pragma unroll
    for (int off = kWarp / 2; off > 0; off >>= 1)
      best = max(best, __shfl_xor_sync(kFullMask, best, off));
    if (i == 0)
      best_score[pair] = best;
  }
}

// ---------------------------------------------------------------------------
// Canonical 31-mer counting. Reads are kReadLen bases, one byte per base
// (A 0, C 1, G 2, T 3, 4 for N), one warp per read: the warp stages its read
// in shared memory with coalesced 4-byte loads; lane L then rolls the k-mer
// (and its reverse complement) over its kKmersPerLane consecutive starting
// positions, reading bytes 4 L + k (one word per lane: no bank conflict),
// takes the smaller of the two for each position without an N and counts
// it in a linear-probing table: a plain load first (most k-mers are
// already present), atomicCAS to claim an empty slot.
constexpr int kK = 31, kReadLen = 152, kReadWords = kReadLen / 4;
constexpr int kKmersPerRead = kReadLen - kK + 1;
constexpr int kKmersPerLane = (kKmersPerRead + kWarp - 1) / kWarp;
constexpr int kKmerWarps = 8;
constexpr unsigned long long kEmptyKey = ~0ull;
constexpr uint64_t kKmerMask = (1ull << (2 * kK)) - 1u;

__device__ __forceinline__ uint64_t mix64(uint64_t k) {
  k ^= k >> 31;
  k *= 0x7fb5d329728ea185ull;
  k ^= k >> 27;
  k *= 0x81dadef4bc2dd44dull;
  return k ^ (k >> 33);
}

__global__ void __launch_bounds__(kKmerWarps *kWarp)
    count_kmers(const uint32_t *__restrict__ reads, int nreads,
                unsigned long long *__restrict__ table_keys,
                unsigned *__restrict__ table_counts, uint64_t table_mask) {
  __shared__ uint32_t s_read[kKmerWarps][kReadWords];
  const int lane = threadIdx.x % kWarp, wid = threadIdx.x / kWarp;
  const int read = blockIdx.x * kKmerWarps + wid;
  if (read >= nreads)
    return; // whole warps leave; the rest of the kernel syncs warps only
  for (int w = lane; w < kReadWords; w += kWarp)
    s_read[wid][w] = reads[(size_t)read * kReadWords + w];
  __syncwarp();
  const uint8_t *bases = reinterpret_cast<const uint8_t *>(s_read[wid]);
  const int p0 = lane * kKmersPerLane;
  if (p0 >= kKmersPerRead)
    return;
  uint64_t fwd = 0, rev = 0;
  int last_n = -1; // position of the last N seen
  auto push = [&](int pos) {
    const uint32_t b = bases[pos];
    if (b > 3u)
      last_n = pos;
    fwd = ((fwd << 2) | (b & 3u)) & kKmerMask;
    rev = (rev >> 2) | ((uint64_t)(3u - (b & 3u)) << (2 * (kK - 1)));
  };
#pragma unroll
  for (int k = 0; k < kK - 1; ++k)
    push(p0 + k);
#pragma unroll
  for (int m = 0; m < kKmersPerLane; ++m) {
    const int p = p0 + m;
    if (p >= kKmersPerRead)
      break;
    push(p + kK - 1);
    if (last_n >= p)
      continue;
    const unsigned long long kmer = fwd < rev ? fwd : rev;
    uint64_t slot = mix64(kmer) & table_mask;
    while (true) {
      unsigned long long key = table_keys[slot];
      if (key == kEmptyKey)
        key = atomicCAS(&table_keys[slot], kEmptyKey, kmer);
      if (key == kEmptyKey || key == kmer) {
        atomicAdd(&table_counts[slot], 1u);
        break;
      }
      slot = (slot + 1) & table_mask;
    }
  }
}

// ---------------------------------------------------------------------------
// Exact search of a pattern of at most kMaxPattern bytes. A block covers
// kSearchTile text positions: it stages them and the pattern's overhang in
// shared memory with 4-byte loads, then each thread tests positions t,
// t + 256, ... against the pattern in constant memory (every lane reads the
// same pattern byte: a broadcast). Matches are appended with one atomic per
// warp (ballot, popc); their order is not kept, and the count goes on past
// max_hits so that the caller can retry with a larger buffer.
constexpr int kMaxPattern = 64, kSearchThreads = 256;
constexpr int kSearchTile = 4 * kSearchThreads;
__constant__ uint8_t c_pattern[kMaxPattern];

__global__ void __launch_bounds__(kSearchThreads)
    pattern_search(const uint32_t *__restrict__ text_words, long long text_len,
                   int pat_len, long long *__restrict__ hits,
                   unsigned max_hits, unsigned *__restrict__ nhits) {
  __shared__ uint32_t s_words[(kSearchTile + kMaxPattern) / 4];
  const long long base = (long long)blockIdx.x * kSearchTile;
  const long long nwords = (text_len + 3) / 4;
  for (int w = threadIdx.x; w < (kSearchTile + kMaxPattern) / 4;
       w += kSearchThreads) {
    const long long gw = base / 4 + w;
    s_words[w] = gw < nwords ? text_words[gw] : 0u;
  }
  __syncthreads();
  const uint8_t *s_text = reinterpret_cast<const uint8_t *>(s_words);
  const int lane = threadIdx.x % kWarp;
#pragma unroll
  for (int r = 0; r < kSearchTile / kSearchThreads; ++r) {
    const int p = threadIdx.x + r * kSearchThreads;
    bool match = base + p + pat_len <= text_len;
    for (int k = 0; match && k < pat_len; ++k)
      match = s_text[p + k] == c_pattern[k];
    const unsigned ballot = __ballot_sync(kFullMask, match);
    unsigned slot = 0;
    if (lane == 0 && ballot != 0u)
      slot = atomicAdd(nhits, (unsigned)__popc(ballot));
    slot = __shfl_sync(kFullMask, slot, 0);
    slot += __popc(ballot & ((1u << lane) - 1u));
    if (match && slot < max_hits)
      hits[slot] = base + p;
  }
}

// ---------------------------------------------------------------------------
// ASCII bases to 2 bits (A 0, C 1, T 2, G 3: (c >> 1) & 3, either case),
// 16 bases per thread: one 16-byte load, one packed word and a 16-bit mask
// of the N (or other non-ACGT) positions. The sequence length is a multiple
// of 16.
__device__ __forceinline__ void pack4(uint32_t w, int shift, uint32_t &packed,
                                      uint32_t &nmask) {
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    const uint32_t c = (w >> (8 * b)) & 0xdfu; // upper case
    packed |= ((c >> 1) & 3u) << (2 * (shift + b));
    const bool acgt = c == 'A' || c == 'C' || c == 'G' || c == 'T';
    nmask |= (acgt ? 0u : 1u) << (shift + b);
  }
}

__global__ void pack_bases(const uint4 *__restrict__ ascii,
                           uint32_t *__restrict__ packed,
                           uint16_t *__restrict__ nmask, int nwords) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nwords)
    return;
  const uint4 v = ascii[i];
  uint32_t p = 0u, m = 0u;
  pack4(v.x, 0, p, m);
  pack4(v.y, 4, p, m);
  pack4(v.z, 8, p, m);
  pack4(v.w, 12, p, m);
  packed[i] = p;
  nmask[i] = (uint16_t)m;
}

// Reverse complement of a packed sequence (a multiple of 16 bases): word i
// of the output is word nwords - 1 - i of the input with its 2-bit fields
// reversed and complemented (A <-> T and C <-> G are XOR 2 in this code).
// Both accesses of a warp cover one contiguous 128-byte run.
__global__ void revcomp_packed(const uint32_t *__restrict__ in,
                               uint32_t *__restrict__ out, int nwords) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nwords)
    return;
  uint32_t w = __brev(in[nwords - 1 - i]);
  w = ((w >> 1) & 0x55555555u) | ((w & 0x55555555u) << 1); // fix pair order
  out[i] = w ^ 0xaaaaaaaau;
}

// ---------------------------------------------------------------------------
// GC fraction and mean Phred quality of fixed-length reads (kReadLen bytes of
// sequence and of quality per read, 4-byte aligned), one warp per read: the
// lanes read consecutive words, count G and C with byte-wise compares
// (__vcmpeq4) and sum qualities with __vsadu4, then a shuffle reduction.
__global__ void read_stats(const uint32_t *__restrict__ seq,
                           const uint32_t *__restrict__ qual, int nreads,
                           float2 *__restrict__ stats) {
  const int lane = threadIdx.x % kWarp;
  const int read = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp;
  if (read >= nreads)
    return;
  const uint32_t *s = seq + (size_t)read * kReadWords;
  const uint32_t *q = qual + (size_t)read * kReadWords;
  unsigned gc = 0u, qsum = 0u;
  for (int w = lane; w < kReadWords; w += kWarp) {
    const uint32_t b = s[w] & 0xdfdfdfdfu;
    gc += __popc(__vcmpeq4(b, 0x43434343u) | __vcmpeq4(b, 0x47474747u));
    qsum += __vsadu4(q[w], 0x21212121u); // Phred+33
  }
#pragma unroll
  for (int off = kWarp / 2; off > 0; off >>= 1) {
    gc += __shfl_xor_sync(kFullMask, gc, off);
    qsum += __shfl_xor_sync(kFullMask, qsum, off);
  }
  if (lane == 0)
    stats[read] = make_float2((float)(gc / 8u) * (1.0f / kReadLen),
                              (float)qsum * (1.0f / kReadLen));
}

// ---------------------------------------------------------------------------
int run_bio(const int8_t *h_blosum, const uint8_t *h_pattern, int pat_len,
            cudaStream_t st) {
  // 65536 alignments of 256-residue queries against targets of <= 2048.
  const int npairs = 1 << 16, qlen = 256, tlen = 1536;
  uint8_t *q_res, *t_res;
  int *q_off, *t_off, *scores;
  int8_t *subst;
  cudaMalloc(&q_res, (size_t)npairs * qlen);
  cudaMalloc(&t_res, (size_t)npairs * tlen);
  cudaMalloc(&q_off, (npairs + 1) * sizeof(int));
  cudaMalloc(&t_off, (npairs + 1) * sizeof(int));
  cudaMalloc(&scores, npairs * sizeof(int));
  cudaMalloc(&subst, kAlphabet * kAlphabet);
  cudaMemcpyAsync(subst, h_blosum, kAlphabet * kAlphabet,
                  cudaMemcpyHostToDevice, st);
  smith_waterman<<<npairs, kSwThreads, 0, st>>>(q_res, q_off, t_res, t_off,
                                                subst, 11, 1, scores);

  // 8M reads of 152 bases: k-mer table of 2^28 slots.
  const int nreads = 1 << 23;
  const uint64_t slots = 1ull << 28;
  uint32_t *codes, *seqs, *quals;
  unsigned long long *tkeys;
  unsigned *tcounts;
  float2 *rstats;
  cudaMalloc(&codes, (size_t)nreads * kReadLen);
  cudaMalloc(&seqs, (size_t)nreads * kReadLen);
  cudaMalloc(&quals, (size_t)nreads * kReadLen);
  cudaMalloc(&tkeys, slots * sizeof(unsigned long long));
  cudaMalloc(&tcounts, slots * sizeof(unsigned));
  cudaMalloc(&rstats, nreads * sizeof(float2));
  cudaMemsetAsync(tkeys, 0xff, slots * sizeof(unsigned long long), st);
  cudaMemsetAsync(tcounts, 0, slots * sizeof(unsigned), st);
  count_kmers<<<(nreads + kKmerWarps - 1) / kKmerWarps, kKmerWarps * kWarp, 0,
                st>>>(codes, nreads, tkeys, tcounts, slots - 1);
  read_stats<<<(nreads * kWarp + 255) / 256, 256, 0, st>>>(seqs, quals,
                                                           nreads, rstats);

  // A 4 GiB text (a genome as ASCII), packed and searched.
  const long long text_len = 1ll << 32;
  const int nwords16 = (int)(text_len / 16);
  uint4 *text;
  uint32_t *packed, *rc;
  uint16_t *nmask;
  long long *hits;
  const unsigned max_hits = 1u << 24;
  unsigned *nhits;
  cudaMalloc(&text, text_len);
  cudaMalloc(&packed, nwords16 * sizeof(uint32_t));
  cudaMalloc(&rc, nwords16 * sizeof(uint32_t));
  cudaMalloc(&nmask, nwords16 * sizeof(uint16_t));
  cudaMalloc(&hits, max_hits * sizeof(long long));
  cudaMalloc(&nhits, sizeof(unsigned));
  pack_bases<<<(nwords16 + 255) / 256, 256, 0, st>>>(text, packed, nmask,
                                                     nwords16);
  revcomp_packed<<<(nwords16 + 255) / 256, 256, 0, st>>>(packed, rc, nwords16);
  cudaMemcpyToSymbolAsync(c_pattern, h_pattern, pat_len, 0,
                          cudaMemcpyHostToDevice, st);
  cudaMemsetAsync(nhits, 0, sizeof(unsigned), st);
  pattern_search<<<(unsigned)((text_len + kSearchTile - 1) / kSearchTile),
                   kSearchThreads, 0, st>>>(
      reinterpret_cast<const uint32_t *>(text), text_len, pat_len, hits,
      max_hits, nhits);
  cudaStreamSynchronize(st);

  cudaFree(q_res);
  cudaFree(t_res);
  cudaFree(q_off);
  cudaFree(t_off);
  cudaFree(scores);
  cudaFree(subst);
  cudaFree(codes);
  cudaFree(seqs);
  cudaFree(quals);
  cudaFree(tkeys);
  cudaFree(tcounts);
  cudaFree(rstats);
  cudaFree(text);
  cudaFree(packed);
  cudaFree(rc);
  cudaFree(nmask);
  cudaFree(hits);
  cudaFree(nhits);
  return 0;
}

// Bitwise, cryptographic and hashing kernels: AES-128 in counter mode with
// T-tables built in shared memory, SHA-256 compression of one block per
// thread, CRC-32 of pages (slicing by 4 in shared memory, lanes' CRCs
// combined with carry-less multiplications), Murmur3 key hashing, a split
// block Bloom filter (insert and bit-packed query), population count of a
// bitset intersection, and a hash partition (per-block histogram, scan,
// scatter): no finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cstdint>

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarp = 32;

__device__ __forceinline__ uint32_t bswap32(uint32_t x) {
  return __byte_perm(x, 0u, 0x0123);
}
__device__ __forceinline__ uint32_t rotr32(uint32_t x, int n) {
  return __funnelshift_r(x, x, n);
}

// ---------------------------------------------------------------------------
// AES-128, counter mode. Every block builds the four encryption T-tables and
// the S-box in shared memory from the 256-byte S-box (one entry per thread);
// the 44 round-key words live in constant memory (every thread reads the
// same word at the same time: a broadcast). A thread encrypts one 16-byte
// counter block per trip of a grid-stride loop and XORs it into the data
// with one 16-byte load and one 16-byte store.
constexpr int kAesThreads = 256;
__constant__ uint32_t c_round_keys[44];

__device__ __forceinline__ uint32_t xtime(uint32_t b) {
  return ((b << 1) ^ ((b & 0x80u) ? 0x1bu : 0u)) & 0xffu;
}

__global__ void __launch_bounds__(kAesThreads)
    aes128_ctr(const uint4 *__restrict__ in, uint4 *__restrict__ out,
               const uint8_t *__restrict__ sbox, uint64_t nonce,
               uint64_t first_counter, size_t nblocks) {
  __shared__ uint32_t te[4][256];
  __shared__ uint32_t s_box[256];
  {
    const uint32_t s = sbox[threadIdx.x];
    const uint32_t s2 = xtime(s), s3 = s2 ^ s;
    const uint32_t t0 = (s2 << 24) | (s << 16) | (s << 8) | s3;
    te[0][threadIdx.x] = t0;
    te[1][threadIdx.x] = rotr32(t0, 8);
    te[2][threadIdx.x] = rotr32(t0, 16);
    te[3][threadIdx.x] = rotr32(t0, 24);
    s_box[threadIdx.x] = s;
  }
  __syncthreads();
  const size_t stride = (size_t)gridDim.x * kAesThreads;
  for (size_t b = (size_t)blockIdx.x * kAesThreads + threadIdx.x; b < nblocks;
       b += stride) {
    const uint64_t ctr = first_counter + b;
    uint32_t s0 = (uint32_t)(nonce >> 32) ^ c_round_keys[0];
    uint32_t s1 = (uint32_t)nonce ^ c_round_keys[1];
    uint32_t s2 = (uint32_t)(ctr >> 32) ^ c_round_keys[2];
    uint32_t s3 = (uint32_t)ctr ^ c_round_keys[3];
#pragma unroll
    for (int r = 1; r < 10; ++r) {
      const uint32_t t0 = te[0][s0 >> 24] ^ te[1][(s1 >> 16) & 0xffu] ^
                          te[2][(s2 >> 8) & 0xffu] ^ te[3][s3 & 0xffu] ^
                          c_round_keys[4 * r];
      const uint32_t t1 = te[0][s1 >> 24] ^ te[1][(s2 >> 16) & 0xffu] ^
                          te[2][(s3 >> 8) & 0xffu] ^ te[3][s0 & 0xffu] ^
                          c_round_keys[4 * r + 1];
      const uint32_t t2 = te[0][s2 >> 24] ^ te[1][(s3 >> 16) & 0xffu] ^
                          te[2][(s0 >> 8) & 0xffu] ^ te[3][s1 & 0xffu] ^
                          c_round_keys[4 * r + 2];
      const uint32_t t3 = te[0][s3 >> 24] ^ te[1][(s0 >> 16) & 0xffu] ^
                          te[2][(s1 >> 8) & 0xffu] ^ te[3][s2 & 0xffu] ^
                          c_round_keys[4 * r + 3];
      s0 = t0;
      s1 = t1;
      s2 = t2;
      s3 = t3;
    }
    auto last = [&](uint32_t a, uint32_t b1, uint32_t c, uint32_t d, int w) {
      return ((s_box[a >> 24] << 24) | (s_box[(b1 >> 16) & 0xffu] << 16) |
              (s_box[(c >> 8) & 0xffu] << 8) | s_box[d & 0xffu]) ^
             c_round_keys[40 + w];
    };
    const uint32_t k0 = last(s0, s1, s2, s3, 0), k1 = last(s1, s2, s3, s0, 1);
    const uint32_t k2 = last(s2, s3, s0, s1, 2), k3 = last(s3, s0, s1, s2, 3);
    const uint4 p = in[b];
    out[b] = make_uint4(p.x ^ bswap32(k0), p.y ^ bswap32(k1),
                        p.z ^ bswap32(k2), p.w ^ bswap32(k3));
  }
}

// ---------------------------------------------------------------------------
// SHA-256 compression of one padded 64-byte block per thread from the
// standard initial value (the leaves of a Merkle tree). The rounds are
// compute-bound (some 3000 instructions per 64 bytes); a thread reads its
// block with four 16-byte loads that together use every byte of the warp's
// sectors, and writes its digest with two 16-byte stores. The message
// schedule is a rolling window of 16 registers.
__constant__ uint32_t c_sha_k[64];

__device__ __forceinline__ uint32_t sha_ch(uint32_t e, uint32_t f, uint32_t g) {
  return (e & f) ^ (~e & g);
}
__device__ __forceinline__ uint32_t sha_maj(uint32_t a, uint32_t b, uint32_t c) {
  return (a & b) ^ (a & c) ^ (b & c);
}

__global__ void __launch_bounds__(128)
    sha256_leaves(const uint4 *__restrict__ blocks, uint4 *__restrict__ digests,
                  int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  uint32_t w[16];
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const uint4 v = blocks[(size_t)i * 4 + q];
    w[4 * q] = bswap32(v.x);
    w[4 * q + 1] = bswap32(v.y);
    w[4 * q + 2] = bswap32(v.z);
    w[4 * q + 3] = bswap32(v.w);
  }
  uint32_t a = 0x6a09e667u, b = 0xbb67ae85u, c = 0x3c6ef372u, d = 0xa54ff53au;
  uint32_t e = 0x510e527fu, f = 0x9b05688cu, g = 0x1f83d9abu, h = 0x5be0cd19u;
#pragma unroll
  for (int t = 0; t < 64; ++t) {
    if (t >= 16) {
      const uint32_t w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
      const uint32_t s0 = rotr32(w15, 7) ^ rotr32(w15, 18) ^ (w15 >> 3);
      const uint32_t s1 = rotr32(w2, 17) ^ rotr32(w2, 19) ^ (w2 >> 10);
      w[t & 15] += s0 + w[(t - 7) & 15] + s1;
    }
    const uint32_t S1 = rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25);
    const uint32_t t1 = h + S1 + sha_ch(e, f, g) + c_sha_k[t] + w[t & 15];
    const uint32_t S0 = rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22);
    const uint32_t t2 = S0 + sha_maj(a, b, c);
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  digests[(size_t)i * 2] =
      make_uint4(bswap32(a + 0x6a09e667u), bswap32(b + 0xbb67ae85u),
                 bswap32(c + 0x3c6ef372u), bswap32(d + 0xa54ff53au));
  digests[(size_t)i * 2 + 1] =
      make_uint4(bswap32(e + 0x510e527fu), bswap32(f + 0x9b05688cu),
                 bswap32(g + 0x1f83d9abu), bswap32(h + 0x5be0cd19u));
}

// ---------------------------------------------------------------------------
// CRC-32 (IEEE, reflected) of 4 KiB pages, one warp per page. The warp
// stages its page in shared memory with coalesced 4-byte loads, lane L's
// 128-byte chunk in row L of a [32][33] array (the padding puts the 32 lanes'
// words in 32 different banks); each lane runs slicing-by-4 over its chunk
// with the four tables in shared memory. Since crc(A B) = crc(A) * x^(8 |B|)
// mod P xor crc(B), the page's CRC is the XOR over lanes of crc_L times
// x^(8 * 128 * (31 - L)): one carry-less multiplication per lane (its power
// read once from a 32-entry table) and a five-step XOR butterfly.
constexpr uint32_t kCrcPoly = 0xedb88320u;
constexpr int kPageWords = 1024, kChunkWords = kPageWords / kWarp;
constexpr int kCrcWarps = 8, kCrcThreads = kCrcWarps * kWarp;

__device__ __forceinline__ uint32_t gf2_multmod(uint32_t a, uint32_t b) {
  uint32_t p = 0u;
#pragma unroll
  for (int k = 0; k < 32; ++k) {
    p ^= b & (0u - ((a >> (31 - k)) & 1u));
    b = (b >> 1) ^ (kCrcPoly & (0u - (b & 1u)));
  }
  return p;
}

__global__ void __launch_bounds__(kCrcThreads)
    crc32_pages(const uint32_t *__restrict__ pages,
                const uint32_t *__restrict__ lane_shift,
                uint32_t *__restrict__ crcs, int npages) {
  __shared__ uint32_t tab[4][256];
  __shared__ uint32_t chunk[kCrcWarps][kWarp][kChunkWords + 1];
  {
    uint32_t c = threadIdx.x;
#pragma unroll
    for (int k = 0; k < 8; ++k)
      c = (c >> 1) ^ (kCrcPoly & (0u - (c & 1u)));
    tab[0][threadIdx.x] = c;
  }
  __syncthreads();
  {
    uint32_t c = tab[0][threadIdx.x];
#pragma unroll
    for (int k = 1; k < 4; ++k) {
      c = (c >> 8) ^ tab[0][c & 0xffu];
      tab[k][threadIdx.x] = c;
    }
  }
  const int lane = threadIdx.x % kWarp, wid = threadIdx.x / kWarp;
  const int page = blockIdx.x * kCrcWarps + wid;
  if (page < npages) {
    const uint32_t *src = pages + (size_t)page * kPageWords;
#pragma unroll 8
    for (int j = lane; j < kPageWords; j += kWarp)
      chunk[wid][j / kChunkWords][j % kChunkWords] = src[j];
  }
  __syncthreads();
  if (page >= npages)
    return;
  uint32_t crc = 0xffffffffu;
#pragma unroll 8
  for (int j = 0; j < kChunkWords; ++j) {
    crc ^= chunk[wid][lane][j];
    crc = tab[3][crc & 0xffu] ^ tab[2][(crc >> 8) & 0xffu] ^
          tab[1][(crc >> 16) & 0xffu] ^ tab[0][crc >> 24];
  }
  crc = gf2_multmod(lane_shift[lane], ~crc);
#pragma unroll
  for (int off = kWarp / 2; off > 0; off >>= 1)
    crc ^= __shfl_xor_sync(kFullMask, crc, off);
  if (lane == 0)
    crcs[page] = crc;
}

// ---------------------------------------------------------------------------
// Murmur3 (32-bit) of 8-byte keys, one key per thread.
__device__ __forceinline__ uint32_t murmur3_mix(uint32_t h, uint32_t k) {
  k *= 0xcc9e2d51u;
  k = __funnelshift_l(k, k, 15);
  k *= 0x1b873593u;
  h ^= k;
  h = __funnelshift_l(h, h, 13);
  return h * 5u + 0xe6546b64u;
}

__global__ void murmur3_keys(const uint64_t *__restrict__ keys,
                             uint32_t *__restrict__ hashes, int n,
                             uint32_t seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const uint64_t key = keys[i];
  uint32_t h = murmur3_mix(seed, (uint32_t)key);
  h = murmur3_mix(h, (uint32_t)(key >> 32));
  h ^= 8u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  hashes[i] = h;
}

// ---------------------------------------------------------------------------
// Split block Bloom filter: a key selects one 32-byte block of the filter
// and sets one bit in each of its 8 words (a salted multiply picks the bit),
// so an insert touches one sector and a query is two 16-byte loads.
__constant__ uint32_t c_bloom_salt[8];

__device__ __forceinline__ uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

__global__ void bloom_insert(const uint64_t *__restrict__ keys, int n,
                             uint32_t *__restrict__ filter,
                             uint32_t filter_blocks) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const uint64_t h = fmix64(keys[i]);
  const uint32_t blk = __umulhi((uint32_t)(h >> 32), filter_blocks);
  uint32_t *words = filter + (size_t)blk * 8;
#pragma unroll
  for (int j = 0; j < 8; ++j)
    atomicOr(&words[j], 1u << (((uint32_t)h * c_bloom_salt[j]) >> 27));
}

// Query: one result bit per key, packed with a ballot (lane 0 of each warp
// writes the warp's word). The block size is a multiple of 32.
__global__ void bloom_query(const uint64_t *__restrict__ keys, int n,
                            const uint4 *__restrict__ filter,
                            uint32_t filter_blocks,
                            uint32_t *__restrict__ hits) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool hit = false;
  if (i < n) {
    const uint64_t h = fmix64(keys[i]);
    const uint32_t blk = __umulhi((uint32_t)(h >> 32), filter_blocks);
    const uint4 lo = filter[2 * (size_t)blk], hi = filter[2 * (size_t)blk + 1];
    const uint32_t words[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    uint32_t miss = 0u;
#pragma unroll
    for (int j = 0; j < 8; ++j)
      miss |= ~words[j] & (1u << (((uint32_t)h * c_bloom_salt[j]) >> 27));
    hit = miss == 0u;
  }
  const uint32_t ballot = __ballot_sync(kFullMask, hit);
  if (threadIdx.x % kWarp == 0 && i < n)
    hits[i / kWarp] = ballot;
}

// ---------------------------------------------------------------------------
// |A and B| of two bitsets: 16-byte loads in a grid-stride loop, a warp
// shuffle sum, the warps' sums folded by warp 0 and one 64-bit atomic per
// block.
__device__ __forceinline__ unsigned warp_sum_u(unsigned v) {
#pragma unroll
  for (int off = kWarp / 2; off > 0; off >>= 1)
    v += __shfl_xor_sync(kFullMask, v, off);
  return v;
}

__global__ void __launch_bounds__(256)
    popcount_and(const uint4 *__restrict__ a, const uint4 *__restrict__ b,
                 size_t n4, unsigned long long *__restrict__ count) {
  __shared__ unsigned warp_part[256 / kWarp];
  unsigned acc = 0u;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
       i += stride) {
    const uint4 x = a[i], y = b[i];
    acc += __popc(x.x & y.x) + __popc(x.y & y.y) + __popc(x.z & y.z) +
           __popc(x.w & y.w);
  }
  acc = warp_sum_u(acc);
  const int lane = threadIdx.x % kWarp, wid = threadIdx.x / kWarp;
  if (lane == 0)
    warp_part[wid] = acc;
  __syncthreads();
  if (wid == 0) {
    acc = lane < 256 / kWarp ? warp_part[lane] : 0u;
    acc = warp_sum_u(acc);
    if (lane == 0)
      atomicAdd(count, (unsigned long long)acc);
  }
}

// ---------------------------------------------------------------------------
// Hash partitioning of 64-bit keys into 2^kPartBits partitions (the first
// pass of a radix hash join). Pass 1: every block counts its grid-stride
// share in shared memory and writes its counts partition-major, so that an
// exclusive scan of the whole array gives every (partition, block) pair its
// output offset. Pass 2 re-reads the same share and scatters each key to its
// partition through a shared cursor per partition.
constexpr int kPartBits = 10, kParts = 1 << kPartBits;
constexpr int kPartThreads = 512;

__device__ __forceinline__ uint32_t partition_of(uint64_t key) {
  return (uint32_t)(fmix64(key) >> (64 - kPartBits));
}

__global__ void __launch_bounds__(kPartThreads)
    partition_histogram(const uint64_t *__restrict__ keys, int n,
                        uint32_t *__restrict__ block_counts) {
  __shared__ uint32_t hist[kParts];
  for (int p = threadIdx.x; p < kParts; p += kPartThreads)
    hist[p] = 0u;
  __syncthreads();
  for (int i = blockIdx.x * kPartThreads + threadIdx.x; i < n;
       i += gridDim.x * kPartThreads)
    atomicAdd(&hist[partition_of(keys[i])], 1u);
  __syncthreads();
  for (int p = threadIdx.x; p < kParts; p += kPartThreads)
    block_counts[p * gridDim.x + blockIdx.x] = hist[p];
}

__global__ void __launch_bounds__(kPartThreads)
    partition_scatter(const uint64_t *__restrict__ keys, int n,
                      const uint32_t *__restrict__ block_offsets,
                      uint64_t *__restrict__ out) {
  __shared__ uint32_t cursor[kParts];
  for (int p = threadIdx.x; p < kParts; p += kPartThreads)
    cursor[p] = block_offsets[p * gridDim.x + blockIdx.x];
  __syncthreads();
  for (int i = blockIdx.x * kPartThreads + threadIdx.x; i < n;
       i += gridDim.x * kPartThreads) {
    const uint64_t key = keys[i];
    out[atomicAdd(&cursor[partition_of(key)], 1u)] = key;
  }
}

// ---------------------------------------------------------------------------
// Host side.
static uint32_t host_multmod(uint32_t a, uint32_t b) {
  uint32_t p = 0u;
  for (int k = 0; k < 32; ++k) {
    if (a & (0x80000000u >> k))
      p ^= b;
    b = (b & 1u) ? (b >> 1) ^ kCrcPoly : b >> 1;
  }
  return p;
}
// x^(8 * nbytes) mod P, by squaring.
static uint32_t host_x8n(uint32_t nbytes) {
  uint32_t sq = 1u << 30; // x^1
  for (int k = 0; k < 3; ++k)
    sq = host_multmod(sq, sq); // x^8
  uint32_t p = 1u << 31;       // x^0
  while (nbytes) {
    if (nbytes & 1u)
      p = host_multmod(sq, p);
    sq = host_multmod(sq, sq);
    nbytes >>= 1;
  }
  return p;
}

int run_crypto_hash(const uint8_t *h_sbox, const uint32_t *h_round_keys,
                    const uint32_t *h_sha_k, const uint32_t *h_salt,
                    cudaStream_t s) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);

  // AES-CTR over 256 MiB.
  const size_t aes_blocks = (256u << 20) / 16;
  uint4 *plain, *cipher;
  uint8_t *sbox;
  cudaMalloc(&plain, aes_blocks * sizeof(uint4));
  cudaMalloc(&cipher, aes_blocks * sizeof(uint4));
  cudaMalloc(&sbox, 256);
  cudaMemcpyAsync(sbox, h_sbox, 256, cudaMemcpyHostToDevice, s);
  cudaMemcpyToSymbolAsync(c_round_keys, h_round_keys, 44 * sizeof(uint32_t), 0,
                          cudaMemcpyHostToDevice, s);
  aes128_ctr<<<8 * sms, kAesThreads, 0, s>>>(plain, cipher, sbox,
                                             0x0123456789abcdefull, 0ull,
                                             aes_blocks);

  // SHA-256 of 4M leaves.
  const int nleaves = 1 << 22;
  uint4 *leaves, *digests;
  cudaMalloc(&leaves, (size_t)nleaves * 64);
  cudaMalloc(&digests, (size_t)nleaves * 32);
  cudaMemcpyToSymbolAsync(c_sha_k, h_sha_k, 64 * sizeof(uint32_t), 0,
                          cudaMemcpyHostToDevice, s);
  sha256_leaves<<<(nleaves + 127) / 128, 128, 0, s>>>(leaves, digests, nleaves);

  // CRC-32 of 64K pages of 4 KiB.
  const int npages = 1 << 16;
  uint32_t *pages, *crcs, *lane_shift;
  cudaMalloc(&pages, (size_t)npages * kPageWords * sizeof(uint32_t));
  cudaMalloc(&crcs, npages * sizeof(uint32_t));
  cudaMalloc(&lane_shift, kWarp * sizeof(uint32_t));
  static uint32_t shifts[kWarp];
  for (int l = 0; l < kWarp; ++l)
    shifts[l] = host_x8n(4u * kChunkWords * (kWarp - 1 - l));
  cudaMemcpyAsync(lane_shift, shifts, sizeof(shifts), cudaMemcpyHostToDevice,
                  s);
  crc32_pages<<<(npages + kCrcWarps - 1) / kCrcWarps, kCrcThreads, 0, s>>>(
      pages, lane_shift, crcs, npages);

  // Keys: hashing, Bloom filter, partitioning.
  const int nkeys = 1 << 25;
  uint64_t *keys, *probes, *parted;
  uint32_t *hashes, *filter, *hits, *counts, *offsets;
  cudaMalloc(&keys, nkeys * sizeof(uint64_t));
  cudaMalloc(&probes, nkeys * sizeof(uint64_t));
  cudaMalloc(&parted, nkeys * sizeof(uint64_t));
  cudaMalloc(&hashes, nkeys * sizeof(uint32_t));
  murmur3_keys<<<(nkeys + 255) / 256, 256, 0, s>>>(keys, hashes, nkeys,
                                                   0x9747b28cu);

  const uint32_t filter_blocks = (uint32_t)nkeys / 16; // ~ 16 bits per key
  cudaMalloc(&filter, (size_t)filter_blocks * 32);
  cudaMalloc(&hits, (nkeys / kWarp) * sizeof(uint32_t));
  cudaMemsetAsync(filter, 0, (size_t)filter_blocks * 32, s);
  cudaMemcpyToSymbolAsync(c_bloom_salt, h_salt, 8 * sizeof(uint32_t), 0,
                          cudaMemcpyHostToDevice, s);
  bloom_insert<<<(nkeys + 255) / 256, 256, 0, s>>>(keys, nkeys, filter,
                                                   filter_blocks);
  bloom_query<<<(nkeys + 255) / 256, 256, 0, s>>>(
      probes, nkeys, reinterpret_cast<const uint4 *>(filter), filter_blocks,
      hits);

  const size_t nbits4 = (size_t)1 << 24; // two 2^31-bit sets
  uint4 *set_a, *set_b;
  unsigned long long *inter;
  cudaMalloc(&set_a, nbits4 * sizeof(uint4));
  cudaMalloc(&set_b, nbits4 * sizeof(uint4));
  cudaMalloc(&inter, sizeof(unsigned long long));
  cudaMemsetAsync(inter, 0, sizeof(unsigned long long), s);
  popcount_and<<<8 * sms, 256, 0, s>>>(set_a, set_b, nbits4, inter);

  const int pblocks = 2 * sms;
  cudaMalloc(&counts, (size_t)kParts * pblocks * sizeof(uint32_t));
  cudaMalloc(&offsets, (size_t)kParts * pblocks * sizeof(uint32_t));
  partition_histogram<<<pblocks, kPartThreads, 0, s>>>(keys, nkeys, counts);
  void *temp = nullptr;
  size_t temp_bytes = 0;
  cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets,
                                kParts * pblocks, s);
  cudaMallocAsync(&temp, temp_bytes, s);
  cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets,
                                kParts * pblocks, s);
  partition_scatter<<<pblocks, kPartThreads, 0, s>>>(keys, nkeys, offsets,
                                                     parted);
  cudaFreeAsync(temp, s);
  cudaStreamSynchronize(s);

  cudaFree(plain);
  cudaFree(cipher);
  cudaFree(sbox);
  cudaFree(leaves);
  cudaFree(digests);
  cudaFree(pages);
  cudaFree(crcs);
  cudaFree(lane_shift);
  cudaFree(keys);
  cudaFree(probes);
  cudaFree(parted);
  cudaFree(hashes);
  cudaFree(filter);
  cudaFree(hits);
  cudaFree(set_a);
  cudaFree(set_b);
  cudaFree(inter);
  cudaFree(counts);
  cudaFree(offsets);
  return 0;
}

// Molecular dynamics and lattice kernels: a cell list (cell of every
// particle, a key sort, cell bounds, particles reordered by cell), a Verlet
// neighbour list stored neighbour-major, Lennard-Jones forces over it,
// velocity-Verlet kicks and drifts, a fused stream-and-collide D2Q9 lattice
// Boltzmann step on structure-of-arrays populations, cloud-in-cell charge
// deposition privatised per tile in shared memory, and a checkerboard
// Metropolis sweep of the 2-D Ising model on colour-split lattices: no
// finding at all.
// RUN: %cuda-l1-rewrite %s 2>&1 | FileCheck %s -allow-empty -implicit-check-not='{{warning|error}}:'
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -c %s -o %t.o %}
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cstdint>

// ---------------------------------------------------------------------------
// Cell list in a periodic cubic box of side L split into nc^3 cells (nc >= 3,
// cells at least as wide as the neighbour-list radius). Positions are float4
// (x, y, z, unused) in [0, L).
__device__ __forceinline__ int cell_coord(float x, float inv_cell, int nc) {
  return min((int)(x * inv_cell), nc - 1);
}

__global__ void cell_of_particles(const float4 *__restrict__ pos, int n,
                                  float inv_cell, int nc,
                                  int *__restrict__ cell,
                                  int *__restrict__ index) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float4 p = pos[i];
  cell[i] = (cell_coord(p.z, inv_cell, nc) * nc + cell_coord(p.y, inv_cell, nc)) *
                nc +
            cell_coord(p.x, inv_cell, nc);
  index[i] = i;
}

// After the sort by cell: the first and one-past-last sorted index of every
// non-empty cell (both arrays zeroed before, so empty cells are empty
// ranges), and the positions and velocities gathered into sorted order.
__global__ void cell_bounds_reorder(const int *__restrict__ cell_sorted,
                                    const int *__restrict__ index_sorted, int n,
                                    const float4 *__restrict__ pos,
                                    const float4 *__restrict__ vel,
                                    int *__restrict__ cell_start,
                                    int *__restrict__ cell_end,
                                    float4 *__restrict__ pos_sorted,
                                    float4 *__restrict__ vel_sorted) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const int c = cell_sorted[i];
  if (i == 0 || cell_sorted[i - 1] != c)
    cell_start[c] = i;
  if (i == n - 1 || cell_sorted[i + 1] != c)
    cell_end[c] = i + 1;
  const int src = index_sorted[i];
  pos_sorted[i] = pos[src];
  vel_sorted[i] = vel[src];
}

// Verlet list: one thread per (sorted) particle walks the 27 cells around
// its own; neighbour k of particle i goes to nbr[k * n + i], so that the
// force kernel's reads of the k-th neighbours of a warp are contiguous.
// Consecutive threads hold particles of the same or adjacent cells: their
// position reads hit the same lines.
constexpr int kMaxNbr = 128;

__device__ __forceinline__ float min_image(float d, float L, float inv_L) {
  return fmaf(-L, rintf(d * inv_L), d);
}

__global__ void build_neighbors(const float4 *__restrict__ pos, int n,
                                const int *__restrict__ cell_start,
                                const int *__restrict__ cell_end, int nc,
                                float inv_cell, float L, float rlist2,
                                int *__restrict__ nbr,
                                int *__restrict__ nnbr) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float4 pi = pos[i];
  const float inv_L = 1.0f / L;
  const int cx = cell_coord(pi.x, inv_cell, nc);
  const int cy = cell_coord(pi.y, inv_cell, nc);
  const int cz = cell_coord(pi.z, inv_cell, nc);
  int count = 0;
  for (int dz = -1; dz <= 1; ++dz) {
    const int z = cz + dz < 0 ? nc - 1 : (cz + dz == nc ? 0 : cz + dz);
    for (int dy = -1; dy <= 1; ++dy) {
      const int y = cy + dy < 0 ? nc - 1 : (cy + dy == nc ? 0 : cy + dy);
      for (int dx = -1; dx <= 1; ++dx) {
        const int x = cx + dx < 0 ? nc - 1 : (cx + dx == nc ? 0 : cx + dx);
        const int c = (z * nc + y) * nc + x;
        const int end = cell_end[c];
        for (int j = cell_start[c]; j < end; ++j) {
          const float4 pj = pos[j];
          const float ddx = min_image(pj.x - pi.x, L, inv_L);
          const float ddy = min_image(pj.y - pi.y, L, inv_L);
          const float ddz = min_image(pj.z - pi.z, L, inv_L);
          const float r2 = fmaf(ddx, ddx, fmaf(ddy, ddy, ddz * ddz));
          if (j != i && r2 < rlist2) {
            if (count < kMaxNbr)
              nbr[count * n + i] = j;
            ++count;
          }
        }
      }
    }
  }
  nnbr[i] = count; // > kMaxNbr tells the host to rebuild with more room
}

// Lennard-Jones forces and per-particle energies (in .w, half of every pair)
// over the neighbour list, truncated and shifted at rc.
__global__ void lj_forces(const float4 *__restrict__ pos, int n,
                          const int *__restrict__ nbr,
                          const int *__restrict__ nnbr, float L, float rc2,
                          float eps, float sigma2, float e_shift,
                          float4 *__restrict__ force) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float4 pi = pos[i];
  const float inv_L = 1.0f / L;
  const int cnt = min(nnbr[i], kMaxNbr);
  float fx = 0.0f, fy = 0.0f, fz = 0.0f, e = 0.0f;
  for (int k = 0; k < cnt; ++k) {
    const float4 pj = pos[nbr[k * n + i]];
    const float dx = min_image(pi.x - pj.x, L, inv_L);
    const float dy = min_image(pi.y - pj.y, L, inv_L);
    const float dz = min_image(pi.z - pj.z, L, inv_L);
    const float r2 = fmaf(dx, dx, fmaf(dy, dy, dz * dz));
    if (r2 < rc2) {
      const float inv_r2 = 1.0f / r2;
      const float sr2 = sigma2 * inv_r2;
      const float sr6 = sr2 * sr2 * sr2;
      const float f = 24.0f * eps * inv_r2 * sr6 * fmaf(2.0f, sr6, -1.0f);
      fx = fmaf(f, dx, fx);
      fy = fmaf(f, dy, fy);
      fz = fmaf(f, dz, fz);
      e += fmaf(4.0f * eps * sr6, sr6 - 1.0f, -e_shift);
    }
  }
  force[i] = make_float4(fx, fy, fz, 0.5f * e);
}

// Velocity Verlet: half kick and drift (wrapped into the box), then, after
// the new forces, the second half kick. Unit masses.
__global__ void verlet_kick_drift(float4 *__restrict__ pos,
                                  float4 *__restrict__ vel,
                                  const float4 *__restrict__ force, int n,
                                  float dt, float L) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float h = 0.5f * dt, inv_L = 1.0f / L;
  const float4 f = force[i];
  float4 v = vel[i], p = pos[i];
  v.x = fmaf(h, f.x, v.x);
  v.y = fmaf(h, f.y, v.y);
  v.z = fmaf(h, f.z, v.z);
  p.x = fmaf(dt, v.x, p.x);
  p.y = fmaf(dt, v.y, p.y);
  p.z = fmaf(dt, v.z, p.z);
  p.x = fmaf(-L, floorf(p.x * inv_L), p.x);
  p.y = fmaf(-L, floorf(p.y * inv_L), p.y);
  p.z = fmaf(-L, floorf(p.z * inv_L), p.z);
  vel[i] = v;
  pos[i] = p;
}

__global__ void verlet_kick(float4 *__restrict__ vel,
                            const float4 *__restrict__ force, int n,
                            float half_dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float4 f = force[i];
  float4 v = vel[i];
  v.x = fmaf(half_dt, f.x, v.x);
  v.y = fmaf(half_dt, f.y, v.y);
  v.z = fmaf(half_dt, f.z, v.z);
  vel[i] = v;
}

// ---------------------------------------------------------------------------
// D2Q9 lattice Boltzmann, BGK, periodic domain, pull scheme: every node
// gathers its nine incoming populations from its neighbours (population q
// of all nodes is one contiguous plane), collides and writes its nine
// outgoing populations to the other buffer. Directions: 0 rest, 1 E, 2 N,
// 3 W, 4 S, 5 NE, 6 NW, 7 SW, 8 SE.
__global__ void lbm_d2q9_step(const float *__restrict__ f_old,
                              float *__restrict__ f_new, int nx, int ny,
                              float omega) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny)
    return;
  const size_t plane = (size_t)nx * ny;
  const int xm = x == 0 ? nx - 1 : x - 1, xp = x == nx - 1 ? 0 : x + 1;
  const int ym = y == 0 ? ny - 1 : y - 1, yp = y == ny - 1 ? 0 : y + 1;
  const size_t r0 = (size_t)y * nx, rm = (size_t)ym * nx, rp = (size_t)yp * nx;
  // Population q arrives from the node at (x - cx_q, y - cy_q).
  const float f0 = f_old[r0 + x];
  const float f1 = f_old[1 * plane + r0 + xm];
  const float f2 = f_old[2 * plane + rm + x];
  const float f3 = f_old[3 * plane + r0 + xp];
  const float f4 = f_old[4 * plane + rp + x];
  const float f5 = f_old[5 * plane + rm + xm];
  const float f6 = f_old[6 * plane + rm + xp];
  const float f7 = f_old[7 * plane + rp + xp];
  const float f8 = f_old[8 * plane + rp + xm];
  const float rho = ((f0 + f1) + (f2 + f3)) + ((f4 + f5) + (f6 + f7)) + f8;
  const float inv_rho = 1.0f / rho;
  const float ux = ((f1 + f5) + f8 - (f3 + f6) - f7) * inv_rho;
  const float uy = ((f2 + f5) + f6 - (f4 + f7) - f8) * inv_rho;
  const float usq = 1.5f * fmaf(ux, ux, uy * uy);
  auto relax = [&](float f, float w, float cu) {
    const float feq = w * rho * (1.0f + 3.0f * cu + 4.5f * cu * cu - usq);
    return fmaf(-omega, f - feq, f);
  };
  const size_t node = r0 + x;
  constexpr float w0 = 4.0f / 9.0f, w1 = 1.0f / 9.0f, w2 = 1.0f / 36.0f;
  f_new[node] = relax(f0, w0, 0.0f);
  f_new[1 * plane + node] = relax(f1, w1, ux);
  f_new[2 * plane + node] = relax(f2, w1, uy);
  f_new[3 * plane + node] = relax(f3, w1, -ux);
  f_new[4 * plane + node] = relax(f4, w1, -uy);
  f_new[5 * plane + node] = relax(f5, w2, ux + uy);
  f_new[6 * plane + node] = relax(f6, w2, uy - ux);
  f_new[7 * plane + node] = relax(f7, w2, -ux - uy);
  f_new[8 * plane + node] = relax(f8, w2, ux - uy);
}

// ---------------------------------------------------------------------------
// Cloud-in-cell charge deposition on a periodic nx x ny grid (unit cells).
// Particles are sorted by kTile x kTile tile of cells; one block per tile
// accumulates its particles' four weights per particle in a shared copy of
// the tile's (kTile + 1)^2 nodes, then adds the non-zero nodes to the grid
// (the last row and column overlap the next tiles, hence global atomics).
constexpr int kTile = 32, kTileNodes = kTile + 1, kDepositThreads = 256;

__global__ void __launch_bounds__(kDepositThreads)
    deposit_cic(const float2 *__restrict__ xy, const float *__restrict__ charge,
                const int *__restrict__ tile_start, int tiles_x, int nx,
                int ny, float *__restrict__ rho) {
  __shared__ float acc[kTileNodes][kTileNodes];
  for (int k = threadIdx.x; k < kTileNodes * kTileNodes; k += kDepositThreads)
    acc[k / kTileNodes][k % kTileNodes] = 0.0f;
  __syncthreads();
  const int tile = blockIdx.x;
  const int gx0 = (tile % tiles_x) * kTile, gy0 = (tile / tiles_x) * kTile;
  const int end = tile_start[tile + 1];
  for (int p = tile_start[tile] + threadIdx.x; p < end; p += kDepositThreads) {
    const float2 r = xy[p];
    const float q = charge[p];
    const float fx = floorf(r.x), fy = floorf(r.y);
    const int lx = (int)fx - gx0, ly = (int)fy - gy0; // in [0, kTile)
    const float ax = r.x - fx, ay = r.y - fy;
    atomicAdd(&acc[ly][lx], q * (1.0f - ax) * (1.0f - ay));
    atomicAdd(&acc[ly][lx + 1], q * ax * (1.0f - ay));
    atomicAdd(&acc[ly + 1][lx], q * (1.0f - ax) * ay);
    atomicAdd(&acc[ly + 1][lx + 1], q * ax * ay);
  }
  __syncthreads();
  for (int k = threadIdx.x; k < kTileNodes * kTileNodes; k += kDepositThreads) {
    const int ly = k / kTileNodes, lx = k % kTileNodes;
    const float v = acc[ly][lx];
    if (v != 0.0f) {
      const int gx = gx0 + lx == nx ? 0 : gx0 + lx;
      const int gy = gy0 + ly == ny ? 0 : gy0 + ly;
      atomicAdd(&rho[(size_t)gy * nx + gx], v);
    }
  }
}

// ---------------------------------------------------------------------------
// 2-D Ising model, checkerboard Metropolis. The L x L lattice is split by
// colour into two (L) x (L / 2) arrays: site (i, k) of colour (i + k) & 1
// is element (i, k / 2) of its colour's array, so a sweep of one colour
// reads and writes its array and reads the other one, all coalesced. Its
// up and down neighbours are element j of the other colour's rows i -+ 1;
// the left and right ones are elements j and j -+ 1 of row i, the sign
// depending on the row's parity. The acceptance probabilities of the two
// positive energy changes come precomputed; the random number is a hash of
// (seed, sweep, site).
__device__ __forceinline__ uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

__global__ void ising_sweep_colour(signed char *__restrict__ mine,
                                   const signed char *__restrict__ other,
                                   int L, int colour, float accept4,
                                   float accept8, uint32_t seed,
                                   uint32_t sweep) {
  const int half = L / 2;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y;
  if (j >= half)
    return;
  const int up = i == 0 ? L - 1 : i - 1, down = i == L - 1 ? 0 : i + 1;
  // Column of this site is 2 j + ((i + colour) & 1); its lateral neighbour
  // other than element j is j - 1 for an even column, j + 1 for an odd one.
  const bool odd = ((i + colour) & 1) != 0;
  const int side = odd ? (j == half - 1 ? 0 : j + 1) : (j == 0 ? half - 1 : j - 1);
  const size_t row = (size_t)i * half;
  const int nsum = other[(size_t)up * half + j] + other[(size_t)down * half + j] +
                   other[row + j] + other[row + side];
  const int s = mine[row + j];
  const int de = s * nsum; // energy change / (2 J)
  bool flip = de <= 0;
  if (!flip) {
    const uint32_t h = hash32(seed ^ hash32(sweep * 0x9e3779b9u + (uint32_t)(row + j)));
    const float u = (float)(h >> 8) * 0x1p-24f;
    flip = u < (de == 2 ? accept4 : accept8);
  }
  if (flip)
    mine[row + j] = (signed char)(-s);
}

// ---------------------------------------------------------------------------
int run_md_lattice(cudaStream_t st) {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const int T = 256;

  // 4M Lennard-Jones particles at reduced density 0.8.
  const int n = 1 << 22;
  const float L = cbrtf((float)n / 0.8f), rc = 2.5f, skin = 0.3f;
  const int nc = (int)(L / (rc + skin));
  const float inv_cell = (float)nc / L;
  const int ncells = nc * nc * nc;
  float4 *pos, *vel, *pos_s, *vel_s, *force;
  int *cell, *index, *cell_s, *index_s, *cstart, *cend, *nbr, *nnbr;
  cudaMalloc(&pos, n * sizeof(float4));
  cudaMalloc(&vel, n * sizeof(float4));
  cudaMalloc(&pos_s, n * sizeof(float4));
  cudaMalloc(&vel_s, n * sizeof(float4));
  cudaMalloc(&force, n * sizeof(float4));
  cudaMalloc(&cell, n * sizeof(int));
  cudaMalloc(&index, n * sizeof(int));
  cudaMalloc(&cell_s, n * sizeof(int));
  cudaMalloc(&index_s, n * sizeof(int));
  cudaMalloc(&cstart, ncells * sizeof(int));
  cudaMalloc(&cend, ncells * sizeof(int));
  cudaMalloc(&nbr, (size_t)kMaxNbr * n * sizeof(int));
  cudaMalloc(&nnbr, n * sizeof(int));
  const int pblocks = (n + T - 1) / T;

  cell_of_particles<<<pblocks, T, 0, st>>>(pos, n, inv_cell, nc, cell, index);
  void *temp = nullptr;
  size_t temp_bytes = 0;
  cub::DeviceRadixSort::SortPairs(temp, temp_bytes, cell, cell_s, index,
                                  index_s, n, 0, 32, st);
  cudaMallocAsync(&temp, temp_bytes, st);
  cub::DeviceRadixSort::SortPairs(temp, temp_bytes, cell, cell_s, index,
                                  index_s, n, 0, 32, st);
  cudaMemsetAsync(cstart, 0, ncells * sizeof(int), st);
  cudaMemsetAsync(cend, 0, ncells * sizeof(int), st);
  cell_bounds_reorder<<<pblocks, T, 0, st>>>(cell_s, index_s, n, pos, vel,
                                             cstart, cend, pos_s, vel_s);
  const float rlist = rc + skin;
  build_neighbors<<<pblocks, T, 0, st>>>(pos_s, n, cstart, cend, nc, inv_cell,
                                         L, rlist * rlist, nbr, nnbr);
  const float sr6c = powf(1.0f / (rc * rc), 3.0f);
  const float e_shift = 4.0f * sr6c * (sr6c - 1.0f);
  // 20 steps (well within the skin's lifetime), velocities synchronised at
  // every step.
  const float dt = 0.005f;
  lj_forces<<<pblocks, T, 0, st>>>(pos_s, n, nbr, nnbr, L, rc * rc, 1.0f, 1.0f,
                                   e_shift, force);
  for (int step = 0; step < 20; ++step) {
    verlet_kick_drift<<<pblocks, T, 0, st>>>(pos_s, vel_s, force, n, dt, L);
    lj_forces<<<pblocks, T, 0, st>>>(pos_s, n, nbr, nnbr, L, rc * rc, 1.0f,
                                     1.0f, e_shift, force);
    verlet_kick<<<pblocks, T, 0, st>>>(vel_s, force, n, 0.5f * dt);
  }
  cudaFreeAsync(temp, st);

  // 4096 x 4096 lattice Boltzmann, 100 steps, ping-pong buffers.
  const int nx = 4096, ny = 4096;
  float *fa, *fb;
  cudaMalloc(&fa, 9 * (size_t)nx * ny * sizeof(float));
  cudaMalloc(&fb, 9 * (size_t)nx * ny * sizeof(float));
  const dim3 lb_block(64, 4), lb_grid(nx / 64, ny / 4);
  for (int t = 0; t < 100; t += 2) {
    lbm_d2q9_step<<<lb_grid, lb_block, 0, st>>>(fa, fb, nx, ny, 1.7f);
    lbm_d2q9_step<<<lb_grid, lb_block, 0, st>>>(fb, fa, nx, ny, 1.7f);
  }

  // Charge deposition: 64M particles on a 2048 x 2048 grid.
  const int gx = 2048, gy = 2048, tiles_x = gx / kTile;
  const int ntiles = tiles_x * (gy / kTile), npart = 1 << 26;
  float2 *xy;
  float *q, *rho;
  int *tstart;
  cudaMalloc(&xy, npart * sizeof(float2));
  cudaMalloc(&q, npart * sizeof(float));
  cudaMalloc(&tstart, (ntiles + 1) * sizeof(int));
  cudaMalloc(&rho, (size_t)gx * gy * sizeof(float));
  cudaMemsetAsync(rho, 0, (size_t)gx * gy * sizeof(float), st);
  deposit_cic<<<ntiles, kDepositThreads, 0, st>>>(xy, q, tstart, tiles_x, gx,
                                                  gy, rho);

  // Ising, 16384^2 sites at the critical temperature, 100 sweeps.
  const int Li = 16384, half = Li / 2;
  const float beta = 0.4406868f;
  signed char *black, *white;
  cudaMalloc(&black, (size_t)Li * half);
  cudaMalloc(&white, (size_t)Li * half);
  const float a4 = expf(-4.0f * beta), a8 = expf(-8.0f * beta);
  const dim3 ig((half + T - 1) / T, Li);
  for (uint32_t sw = 0; sw < 100; ++sw) {
    ising_sweep_colour<<<ig, T, 0, st>>>(black, white, Li, 0, a4, a8, 1234u,
                                         2 * sw);
    ising_sweep_colour<<<ig, T, 0, st>>>(white, black, Li, 1, a4, a8, 1234u,
                                         2 * sw + 1);
  }
  cudaStreamSynchronize(st);

  void *bufs[] = {pos,  vel,  pos_s,  vel_s, force, cell,   index, cell_s,
                  index_s, cstart, cend, nbr, nnbr, fa,   fb,    xy,
                  q,    tstart, rho,  black, white};
  for (void *b : bufs)
    cudaFree(b);
  return 0;
}

/* A tiled, register-blocked double-precision C += A B (column-major,
 * N x N), with the parameters of tile.h (the model, model.c) or of -D
 * options (bench/dgemm.sh's search): VB, MU, NU, KU, PFD at compile
 * time, the block size NB at run time.
 *
 *   dgemm [-n N] [-r REPS] [-c] [NB...]
 *
 * For each NB (default: the model's), the best of REPS multiplies, as
 * "nb NB n N mflops F"; -c also checks the product against a plain triple
 * loop and fails if it is off.  As in ATLAS's search, a block is NB x NB
 * and NB a multiple of the register tile's MR rows and NU columns (other
 * NBs are skipped, with a note on stderr).  Every NB multiplies the same
 * N x N matrices, so that speeds compare: the last block of each
 * dimension is what is left of N, and A's rows and B's columns are padded
 * with zeros to whole tiles.  That padding is work a tile that does not
 * divide N really costs, so it counts against the tile: the speed is
 * that of the 2 N^3 operations asked for.  A and B are packed into the
 * kernel's order once, outside the timing, as a library packs a matrix
 * it multiplies many times. */
#ifndef MU
#include "tile.h"
#endif
#ifndef KU
#define KU 1
#endif
#ifndef PFD
#define PFD 0
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A vector of VL doubles, loaded and stored where only 8 bytes are
 * aligned (C's columns), and aliasing the double arrays it reads. */
typedef double vd __attribute__((vector_size(VB), aligned(8), may_alias));
#define VL (VB / 8)
#define MR (MU * VL) /* rows of a register tile */

#define STR(x) #x
#define PRAGMA(x) _Pragma(STR(x))

/* One register tile: c (MR x NU, leading dimension ldc) += a (KB steps of
 * MR doubles) times b (KB steps of NU doubles).  The loops over the tile
 * are unrolled whole, so that its MU x NU sums live in registers. */
static void
tile(const double *restrict a, const double *restrict b, double *restrict c, long kb, long ldc)
{
  vd acc[MU][NU];
  long k;
  int i, j;

  PRAGMA(GCC unroll 64)
  for (i = 0; i < MU; i++)
    PRAGMA(GCC unroll 64)
  for (j = 0; j < NU; j++)
    acc[i][j] = (vd){ 0 };
  PRAGMA(GCC unroll KU)
  for (k = 0; k < kb; k++) {
    if (PFD)
      __builtin_prefetch(b + (k + PFD) * NU);
    PRAGMA(GCC unroll 64)
    for (j = 0; j < NU; j++) {
      double bj = b[k * NU + j];
      PRAGMA(GCC unroll 64)
      for (i = 0; i < MU; i++)
        acc[i][j] += *(const vd *) (a + k * MR + i * VL) * bj;
    }
  }
  PRAGMA(GCC unroll 64)
  for (j = 0; j < NU; j++)
    PRAGMA(GCC unroll 64)
  for (i = 0; i < MU; i++)
    *(vd *) (c + j * ldc + i * VL) += acc[i][j];
}

struct blocking {
  long mb, kb, nb; /* a block: mb rows of A and C, kb columns of A, nb columns of B */
  long mp, kp, np; /* the matrices' sizes: rows of A and C in whole tiles, N, columns of B and
                      C in whole tiles; the last block of each is what is left */
};

static long
round_up(long x, long m)
{
  return (x + m - 1) / m * m;
}

static long
min(long a, long b)
{
  return a < b ? a : b;
}

/* Packed A: for each block of columns k0 (kc = min(KB, kp - k0) of
 * them), from k0 mp on, its MR-row panels, each kc steps of MR doubles.
 * Packed B: for each k0, from k0 np on, its NU-column panels, each kc
 * steps of NU doubles. */
static void
pack(const struct blocking *g, const double *a, const double *b, long n, double *pa, double *pb)
{
  long i0, k0, j0, i, j, k;

  for (k0 = 0; k0 < g->kp; k0 += g->kb) {
    long kc = min(g->kb, g->kp - k0);
    for (i0 = 0; i0 < g->mp; i0 += MR)
      for (k = 0; k < kc; k++)
        for (i = 0; i < MR; i++)
          pa[k0 * g->mp + i0 * kc + k * MR + i] = i0 + i < n ? a[i0 + i + (k0 + k) * n] : 0;
    for (j0 = 0; j0 < g->np; j0 += NU)
      for (k = 0; k < kc; k++)
        for (j = 0; j < NU; j++)
          pb[k0 * g->np + j0 * kc + k * NU + j] = j0 + j < n ? b[k0 + k + (j0 + j) * n] : 0;
  }
}

/* C (leading dimension mp) += A B from the packed operands: for
 * each block of A (kept in a cache), every NU-column panel of B in turn,
 * and under it every register tile of the block. */
static void
multiply(const struct blocking *g, const double *pa, const double *pb, double *c)
{
  long i0, k0, j0, jp, ip;

  for (k0 = 0; k0 < g->kp; k0 += g->kb) {
    long kc = min(g->kb, g->kp - k0);
    for (j0 = 0; j0 < g->np; j0 += g->nb) {
      long j1 = min(j0 + g->nb, g->np);
      for (i0 = 0; i0 < g->mp; i0 += g->mb) {
        long i1 = min(i0 + g->mb, g->mp);
        for (jp = j0; jp < j1; jp += NU)
          for (ip = i0; ip < i1; ip += MR)
            tile(pa + k0 * g->mp + ip * kc, pb + k0 * g->np + jp * kc, c + ip + jp * g->mp, kc,
                 g->mp);
      }
    }
  }
}

static double
now(void)
{
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

/* The largest error of C against a plain triple loop, relative to the
 * largest element. */
static double
check(const double *a, const double *b, const double *c, long n, long ldc)
{
  double err = 0, big = 0;
  long i, j, k;

  for (j = 0; j < n; j++)
    for (i = 0; i < n; i++) {
      double s = 0;
      for (k = 0; k < n; k++)
        s += a[i + k * n] * b[k + j * n];
      err = fmax(err, fabs(s - c[i + j * ldc]));
      big = fmax(big, fabs(s));
    }
  return big > 0 ? err / big : err;
}

static int
run(long n, long nb, int reps, int verify)
{
  struct blocking g;
  double *a, *b, *pa, *pc, *pb, best = INFINITY;
  long i;
  int r, rc = 0;

  if (nb % MR || nb % NU) {
    fprintf(stderr, "dgemm: NB %ld skipped: not a multiple of MR %d and NU %d\n", nb, MR, NU);
    return 0;
  }
  g.mb = g.nb = g.kb = nb;
  g.mp = round_up(n, MR);
  g.np = round_up(n, NU);
  g.kp = n;
  a = malloc((size_t) (n * n) * sizeof *a);
  b = malloc((size_t) (n * n) * sizeof *b);
  pa = aligned_alloc(64, (size_t) round_up(g.mp * g.kp * 8, 64));
  pb = aligned_alloc(64, (size_t) round_up((g.np * g.kp + PFD * NU) * 8, 64));
  pc = aligned_alloc(64, (size_t) round_up(g.mp * g.np * 8, 64));
  if (!a || !b || !pa || !pb || !pc) {
    fprintf(stderr, "dgemm: out of memory for N=%ld\n", n);
    return 1;
  }
  srand(1);
  for (i = 0; i < n * n; i++) {
    a[i] = (double) rand() / RAND_MAX - 0.5;
    b[i] = (double) rand() / RAND_MAX - 0.5;
  }
  memset(pb, 0, (size_t) ((g.np * g.kp + PFD * NU) * 8));
  pack(&g, a, b, n, pa, pb);
  for (r = 0; r < reps; r++) {
    double t;
    memset(pc, 0, (size_t) (g.mp * g.np * 8));
    t = now();
    multiply(&g, pa, pb, pc);
    best = fmin(best, now() - t);
  }
  printf("nb %ld n %ld mflops %.0f", nb, n,
         2.0 * (double) n * (double) n * (double) n / best / 1e6);
  if (verify) {
    double e = check(a, b, pc, n, g.mp);
    printf(" error %.2g", e);
    rc = !(e < 1e-12 * (double) n);
  }
  printf(" (VB %d MU %d NU %d KU %d PFD %d)\n", VB, MU, NU, KU, PFD);
  free(a);
  free(b);
  free(pa);
  free(pb);
  free(pc);
  return rc;
}

int
main(int argc, char **argv)
{
  long n = 256;
  int reps = 3, verify = 0, c, rc = 0;

  while ((c = getopt(argc, argv, "n:r:c")) != -1)
    switch (c) {
    case 'n':
      n = atol(optarg);
      break;
    case 'r':
      reps = atoi(optarg);
      break;
    case 'c':
      verify = 1;
      break;
    default:
      fprintf(stderr, "usage: dgemm [-n N] [-r REPS] [-c] [NB...]\n");
      return 2;
    }
  if (n < 1 || reps < 1) {
    fprintf(stderr, "dgemm: -n and -r take positive numbers\n");
    return 2;
  }
#ifdef NB_MODEL
  if (optind == argc)
    return run(n, NB_MODEL, reps, verify);
#endif
  for (; optind < argc; optind++)
    if (atol(argv[optind]) < 1) {
      fprintf(stderr, "dgemm: block size '%s' is not a positive number\n", argv[optind]);
      return 2;
    } else
      rc |= run(n, atol(argv[optind]), reps, verify);
  return rc;
}

/* The pseudo-random numbers of the probes and the simulator: xorshift64*
 * and a Fisher-Yates shuffle, seeded by the caller, so that a run repeats
 * exactly where its seed does. */
#include "measure/measure.h"

uint64_t
xray__rand(uint64_t *s)         /* xorshift64* */
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * UINT64_C(2685821657736338717);
}

/* Fisher-Yates.  A chase links its list in order and back to the start,
 * so any order is one cycle that visits every element before it repeats;
 * shuffled, it is one no stride prefetcher can learn (X-Ray's
 * i -> (i + p) mod n is a constant stride modulo n, and Zen 3 learns it). */
void
xray__shuffle(uint64_t *v, size_t n, uint64_t *rng)
{
  size_t i;

  for (i = n; i > 1; i--) {
    size_t j = (size_t) (xray__rand(rng) % i);
    uint64_t t = v[i - 1];
    v[i - 1] = v[j];
    v[j] = t;
  }
}

/* The map's image of v, from the images of the unit vectors (m); without
 * branches, which a random v would mispredict at half its bits. */
static uint64_t
apply(const uint64_t *m, uint64_t v)
{
  uint64_t r = 0;
  int b;

  for (b = 0; b < 64; b++)
    r ^= m[b] & (0 - ((v >> b) & 1));
  return r;
}

void
xray__rand_jumps(struct xray__rand_jumps *j)
{
  uint64_t m[2][64]; /* images of the unit vectors: power k, then k + 1 */
  int b, k, v;

  for (b = 0; b < 64; b++) {
    uint64_t s = UINT64_C(1) << b;
    (void) xray__rand(&s);
    m[0][b] = s;
  }
  for (k = 0; k < 64; k++) {
    const uint64_t *mk = m[k & 1];
    /* A digit's image: the images of its set bits, added (XOR). */
    for (b = 0; b < 16; b++)
      for (v = 0; v < 16; v++)
        j->nib[k][b][v] = (v & 1 ? mk[4 * b] : 0) ^ (v & 2 ? mk[4 * b + 1] : 0)
            ^ (v & 4 ? mk[4 * b + 2] : 0) ^ (v & 8 ? mk[4 * b + 3] : 0);
    /* The next power is this one applied twice. */
    for (b = 0; b < 64 && k < 63; b++)
      m[(k + 1) & 1][b] = apply(mk, mk[b]);
  }
}

void
xray__rand_skip(const struct xray__rand_jumps *j, uint64_t *rng, uint64_t n)
{
  int k, b;

  for (k = 0; n; k++, n >>= 1)
    if (n & 1) {
      uint64_t v = *rng, r = 0;
      for (b = 0; b < 16; b++)
        r ^= j->nib[k][b][(v >> (4 * b)) & 15];
      *rng = r;
    }
}

/* The simulated branch unit: the branch kernels (kernels/branch.c) as a
 * simulated compiler lays them out and a gshare predictor runs them, with
 * a known misprediction penalty.
 *
 * Spec items:
 *   branch=PENALTY[:HISTORY[:WINDOW]]
 *                  cycles a misprediction costs (14); global history bits
 *                  of the gshare predictor (12; 0: a bimodal one); the
 *                  instructions fetched down a wrong path before the
 *                  misprediction resolves (8)
 *   bselect=yes|no the simulated compiler turns every if into a select (no)
 *   bslow=CPU:CYCLES
 *                  CPU's mispredictions cost CYCLES more than the others'
 *                  (what shares its core slows its refetch)
 *
 * The simulated compiler lays each kernel out as the paper's figures do:
 * the if's branch jumps over its block when the condition is false, (f)'s
 * goto is a jump, and the loop ends with one conditional branch back. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How the simulated compiler lays kernel k out: instructions before the
 * if's branch, in its block, after it to the loop's branch (inclusive),
 * and whether the block ends with a jump ((f)'s goto). */
struct layout {
  int before, block, after, then_jump;
};

static const struct layout layouts[XRAY__BK_N] = {
  { 5, 1, 14, 0 }, /* penalty: its chain after the if */
  { 5, 1, 20, 0 }, /* penalty-long */
  { 3, 3, 11, 0 }, /* a */
  { 6, 3, 11, 0 }, /* b */
  { 6, 3, 11, 0 }, /* c */
  { 14, 3, 11, 0 }, /* d: the second random_number after the if */
  { 14, 3, 2, 0 }, /* e: the loop branch right after it */
  { 6, 4, 11, 1 }, /* f: the goto skips the random_number */
  { 4, 0, 0, 0 }, /* g: no if */
};

void
xray__sim_branch_init(struct xray__sim_branch *b)
{
  memset(b, 0, sizeof *b);
  b->penalty = 14;
  b->hist = 12;
  b->window = 8;
  b->slow_cpu = -1;
}

int
xray__sim_branch_item(struct xray__sim_branch *b, const char *key, const char *val, char *err,
                      size_t errlen)
{
  if (strcmp(key, "bselect") == 0) {
    if (strcmp(val, "yes") && strcmp(val, "no")) {
      snprintf(err, errlen, "bselect: '%s' is not yes or no", val);
      return -1;
    }
    b->select = strcmp(val, "yes") == 0;
    return 1;
  }
  if (strcmp(key, "bslow") == 0) {
    char *end;
    double cpu = xray__decimal(val, &end), slow = NAN;
    if (*end == ':')
      slow = xray__decimal(end + 1, &end);
    if (*end || !(cpu >= 0 && cpu < 1024 && cpu == floor(cpu)) || !(slow > 0 && slow <= 1000)) {
      snprintf(err, errlen,
               "bslow=%s: expected CPU:CYCLES, a CPU number and 0 to 1000 cycles more a "
               "misprediction costs on it",
               val);
      return -1;
    }
    b->slow_cpu = (int) cpu;
    b->slow = slow;
    return 1;
  }
  if (strcmp(key, "branch") == 0) {
    double v[3] = { 0, 12, 8 };
    const char *p = val;
    int i;
    for (i = 0; i < 3 && *p; i++) {
      char *end;
      v[i] = xray__decimal(p, &end);
      if (end == p || (*end && *end != ':')) {
        i = -1;
        break;
      }
      p = *end ? end + 1 : end;
    }
    if (i <= 0 || !(v[0] >= 1 && v[0] <= 1000) || !(v[1] >= 0 && v[1] <= 20 && v[1] == floor(v[1]))
        || !(v[2] >= 0 && v[2] <= 1000)) {
      snprintf(err, errlen,
               "branch=%s: expected PENALTY[:HISTORY[:WINDOW]], a penalty of 1 to "
               "1000 cycles, 0 to 20 history bits, a window of 0 to 1000 instructions",
               val);
      return -1;
    }
    b->penalty = v[0];
    b->hist = (int) v[1];
    b->window = v[2];
    return 1;
  }
  return 0;
}

/* The condition of kernel k's if in iteration i. */
static int
condition(size_t k, long i, long size, long lim, uint64_t *rng)
{
  switch (k) {
  case XRAY__BK_PENALTY:
  case XRAY__BK_PENALTY_LONG:
    return i < lim && (xray__rand(rng) >> 63);
  case XRAY__BK_CIT + 0:
    return i < size / 2;
  case XRAY__BK_CIT + 1:
  case XRAY__BK_CIT + 5:
    return 1;
  case XRAY__BK_CIT + 3:
  case XRAY__BK_CIT + 4:
    return (int) ((xray__rand(rng) >> 32) & 1) == 0;
  default:
    return 0;
  }
}

/* Predict and train a 2-bit counter of the gshare table; 1 if wrong. */
static int
predict(uint8_t *table, unsigned *hist, unsigned bits, unsigned pc, int taken)
{
  unsigned mask = (1u << (bits + 2)) - 1, i = ((pc * 0x9e37u) ^ (*hist << 2)) & mask;
  int guess = table[i] >= 2;

  if (taken && table[i] < 3)
    table[i]++;
  else if (!taken && table[i] > 0)
    table[i]--;
  *hist = ((*hist << 1) | (unsigned) taken) & ((1u << bits) - 1);
  return guess != taken;
}

int
xray__sim_branch_run(const struct xray__sim_branch *b, const struct xray__sim_core *c, size_t k,
                     long size, long lim, uint64_t *rng, struct xray__bstats *out)
{
  const struct layout *l = &layouts[k];
  unsigned bits = (unsigned) (b->hist > 0 ? b->hist : 0), hist = 0;
  size_t cells = (size_t) 1 << (bits + 2);
  uint8_t *table = calloc(cells, 1);
  double chain;
  long i;

  memset(out, 0, sizeof *out);
  if (!table || k >= XRAY__BK_N || size < 1) {
    free(table);
    return -1;
  }
  memset(table, 1, cells);
  /* The loop-carried chain: the penalty kernels' LCG step (a multiply
   * and an add) and three xor-shifts (two adds' worth each), two more in
   * the long one; the paper's kernels' volatile global (a store-to-load
   * round trip, taken as the integer divide's latency). */
  chain = k == XRAY__BK_PENALTY    ? c->lat[0][1] + 7 * c->lat[0][0]
      : k == XRAY__BK_PENALTY_LONG ? c->lat[0][1] + 11 * c->lat[0][0]
                                   : c->lat[0][2];
  for (i = 0; i < size; i++) {
    int last = i + 1 == size, miss = 0;
    out->insns += l->before + l->after;
    if (l->block && b->select) {
      out->insns += l->block; /* both sides, and a select */
    } else if (l->block) {
      int cond = condition(k, i, size, lim, rng);
      int taken = !cond; /* the branch jumps over the block */
      out->cond++;
      out->exec_cond++;
      out->taken += taken;
      miss = predict(table, &hist, bits, 1, taken);
      out->insns += cond ? l->block : 0;
      out->direct += cond ? l->then_jump : 0;
      /* Down the wrong path, the loop's branch is fetched and executed if
       * it lies within the window. */
      if (miss && (cond ? 0 : l->block) + l->after <= b->window && !last)
        out->exec_cond++;
      out->miss += miss;
    }
    out->cond++;
    out->exec_cond++;
    out->taken += !last;
    out->miss += predict(table, &hist, bits, 2, !last);
  }
  out->cycles = chain * (double) size + out->miss * b->penalty;
  out->iters = (double) size;
  free(table);
  return 0;
}

void
xray__sim_branch_count(const struct xray__sim_branch *b, size_t k, struct xray__bcount *out)
{
  const struct xray__bkernel *bk = xray__bkernel_at(k);
  const struct layout *l = &layouts[k];

  memset(out, 0, sizeof *out);
  out->ok = 1;
  out->cond = l->block && !b->select ? 2 : 1;
  out->taken = 1 + (l->block ? 1 - bk->p_then : 0);
  out->direct = bk->p_then * l->then_jump;
  out->insns = l->before + l->after + bk->p_then * l->block;
  /* The paper's kernels read two volatile globals an iteration, as the
   * simulated PMU counts them (pmu.c). */
  out->loads = k >= XRAY__BK_CIT ? 2 : 0;
  out->selects = b->select && l->block ? 1 : 0;
}

/* Registers (X-Ray Sec. 3.6) with independent chains: <p1 += p0 | ... | p(n-1) += p0,
 * T, n> keeps n variables live.  While they fit in registers the loop runs
 * at the adders' rate; a spilled variable's chain goes through memory and
 * the time per statement jumps.  On cores with cheap spills (integers on
 * Zen 3) there is no jump, so the compiler's own code decides where it can
 * be read: the stack operands between the first and the last barrier of
 * the timed loop.  A coarse pass (n = 4, 8, ..., 40) brackets the first
 * spill; a fine pass times and checks every n around it. */
#include "probes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REG_MAX 40
#define REG_STEP 4
#define JUMP 1.15               /* time per statement that counts as a step */

/* The values of the three classes: integer, floating-point, vector. */
static const char *const class_names[3] = { "XRAY_NUM_INT_REGS", "XRAY_NUM_FP_REGS",
                                            "XRAY_NUM_VEC_REGS" };

static void
reg_spec(struct xray_cspec *c, char *buf, size_t len, const char *type, int n, int unroll)
{
  size_t o = 0;
  int j;

  for (j = 1; j < n && o < len; j++)
    o += (size_t) snprintf(buf + o, len - o, "%sp%d += p0", j > 1 ? "|" : "", j);
  c->stmts = buf;
  c->type = type;
  c->nvars = n;
  c->unroll = unroll;
  c->style = XRAY__STYLE_BARRIER;
}

#define COARSE (REG_MAX / REG_STEP)
#define FINE 9

/* One run: the type and value of each class (integer, floating-point,
 * vector; NULL where it is not measured), where the fine pass starts, and
 * the kernels of a pass. */
struct regs {
  const char *type[3];
  char given[3][32]; /* the types of --types, where type[] points */
  xray_value *v[3];
  int lo[3];
  char text[3 * (COARSE + FINE)][400];
  struct xray_cspec k[3 * (COARSE + FINE)];
  struct xray__timed t[3 * (COARSE + FINE)];
};

/* The types of --types, one per class; else long, double and the widest
 * vector type the compiler offers at these flags.  Their values are added
 * to r; 0, or -1. */
static int
choose_types(xray_machine *m, xray_report *r, struct regs *g)
{
  static const char *const vec_candidates[] = { "__m512d", "__m256d", "__m128d",
                                                "float64x2_t" };
  int c, j;

  if (m->types[0]) {
    char buf[256], *s, *save = NULL;
    snprintf(buf, sizeof buf, "%s", m->types);
    for (s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
      c = xray__type_class(s);
      if (g->type[c]) {
        snprintf(m->error, sizeof m->error, "registers: '%s' and '%s' are both %s types",
                 g->type[c], s,
                 c == 0       ? "integer"
                     : c == 1 ? "floating"
                              : "vector");
        return -1;
      }
      snprintf(g->given[c], sizeof g->given[c], "%s", s);
      g->type[c] = g->given[c];
    }
  } else {
    struct xray_cspec probe[4];
    struct xray__timed a[4];
    g->type[0] = "long";
    g->type[1] = "double";
    for (j = 0; j < 4; j++) {
      probe[j].stmts = "p0 = p0 + p1";
      probe[j].type = vec_candidates[j];
      probe[j].nvars = 2;
      probe[j].unroll = 1;
      probe[j].style = XRAY__STYLE_BARRIER;
    }
    if (xray__machine_kbuild(m, probe, 4) == 0) {
      for (j = 0; j < 4 && !g->type[2]; j++) {
        a[j].avail = xray__machine_kinfo(m, (size_t) j, &a[j].stack);
        if (a[j].avail)
          g->type[2] = vec_candidates[j];
      }
      if (!g->type[2])
        snprintf(m->error, sizeof m->error, "%s %s offers none of __m512d, __m256d, "
                 "__m128d, float64x2_t", m->cc, m->cflags);
    }
    if (!g->type[2]) {
      xray_value *x = xray__report_param(r, class_names[2], NULL, NULL);
      if (!x)
        return -1;
      xray__value_unknown(x, m->error);
    }
  }
  for (c = 0; c < 3; c++)
    if (g->type[c] && !(g->v[c] = xray__report_param(r, class_names[c], NULL, NULL)))
      return -1;
  return 0;
}

/* A class given up: its value unknown with why, nothing more measured. */
static void
drop_class(struct regs *g, int c, const char *why)
{
  xray__value_unknown(g->v[c], why);
  g->type[c] = NULL;
  g->v[c] = NULL;
}

/* Coarse pass: n = 4, 8, ..., REG_MAX, static check only (timing too
 * where the code cannot be read), brackets the first spill: where the
 * fine pass starts, g->lo.  0, or -1 when nothing could be built. */
static int
coarse_pass(xray_machine *m, struct regs *g)
{
  size_t nk;
  int c, j;

  for (c = 0, nk = 0; c < 3; c++)
    for (j = 0; j < COARSE; j++, nk++)
      /* Classes not asked for keep their slots with a one-statement kernel. */
      reg_spec(&g->k[nk], g->text[nk], sizeof g->text[nk], g->type[c] ? g->type[c] : "long",
               g->type[c] ? (j + 1) * REG_STEP : 2, g->type[c] ? (j + 1) * REG_STEP - 1 : 1);
  if (xray__machine_kbuild(m, g->k, nk)) {
    for (c = 0; c < 3; c++)
      xray__value_unknown(g->v[c], m->error);
    return -1;
  }
  for (c = 0; c < 3; c++) {
    int first_spill = 0;
    char why[200];
    g->lo[c] = 2;
    if (!g->type[c])
      continue;
    for (j = 0; j < COARSE; j++) {
      struct xray__timed *x = &g->t[c * COARSE + j];
      x->avail = xray__machine_kinfo(m, (size_t) (c * COARSE + j), &x->stack);
      if (x->avail && x->stack < 0)
        x->t = xray__time_kernel(m, "registers", &g->k[c * COARSE + j], (size_t) (c * COARSE + j),
                                 &x->avail, &x->stack);
      if (!x->avail)
        break;
      if (x->stack > 0 && !first_spill)
        first_spill = (j + 1) * REG_STEP;
      if (x->stack < 0 && j > 0 && !first_spill && x->t > JUMP * g->t[c * COARSE + j - 1].t)
        first_spill = (j + 1) * REG_STEP;
    }
    if (!g->t[c * COARSE].avail) {
      snprintf(why, sizeof why, "%s %s does not offer %s at these flags", m->cc, m->cflags,
               g->type[c]);
      drop_class(g, c, why);
    } else if (!first_spill) {
      snprintf(why, sizeof why, "no spill of %s up to %d live variables", g->type[c], REG_MAX);
      drop_class(g, c, why);
    } else
      g->lo[c] = first_spill - REG_STEP - 2 < 2 ? 2 : first_spill - REG_STEP - 2;
  }
  return 0;
}

/* Class c's value from the fine pass's kernels x[0..FINE-1] (n = lo ...
 * lo + FINE - 1): the static check decides where the code can be read,
 * and the timing step confirms; elsewhere the timing step decides. */
static void
fine_result(xray_machine *m, struct regs *g, int c, const struct xray__timed *x)
{
  int stat = -1, timed = -1, agree = 1, j, lo = g->lo[c];
  char how[200];

  for (j = 0; j < FINE; j++) {
    agree &= x[j].agree;
    if (stat < 0 && x[j].stack > 0)
      stat = lo + j - 1;
    if (timed < 0 && j > 0 && x[j].t > JUMP * x[j - 1].t)
      timed = lo + j - 1;
  }
  if (x[0].stack > 0 || (stat < 0 && x[FINE - 1].stack == 0)) {
    /* The fine window missed the first spill: the code is not monotonic. */
    stat = -2;
  }
  if (stat >= 0) {
    char tim[64];
    if (timed == stat)
      snprintf(tim, sizeof tim, "timing agrees");
    else if (timed < 0)
      snprintf(tim, sizeof tim, "timing shows no step (spills are cheap here)");
    else
      snprintf(tim, sizeof tim, "timing shows a step at %d live", timed + 1);
    snprintf(how, sizeof how, "static check of %s's code (spills from %d live %s); %s", m->cc,
             stat + 1, g->type[c], tim);
    xray__value_measured(g->v[c], stat, how);
  } else if (timed >= 0 && stat == -1) {
    snprintf(how, sizeof how, "timing: step at %d live %s (the code cannot be read)", timed + 1,
             g->type[c]);
    xray__value_measured(g->v[c], timed, how);
    g->v[c]->unconfirmed = !agree;
  } else
    xray__value_unknown(g->v[c],
                        stat == -2 ? "the compiler's spills do not grow with the "
                                     "variables"
                                   : "no step in the time per statement");
}

/* The fine pass: every n from lo to lo + FINE - 1 of each class, timed
 * and checked. */
static void
fine_pass(xray_machine *m, struct regs *g)
{
  size_t nk;
  int c, j;

  for (c = 0, nk = 0; c < 3; c++)
    for (j = 0; j < FINE; j++, nk++)
      reg_spec(&g->k[nk], g->text[nk], sizeof g->text[nk], g->type[c] ? g->type[c] : "long",
               g->type[c] ? g->lo[c] + j : 2,
               !g->type[c]                 ? 1
                   : 24 > g->lo[c] + j - 1 ? 24
                                           : g->lo[c] + j - 1);
  for (c = 0; c < 3 && !g->type[c]; c++)
    ;
  if (c == 3)
    return;
  if (xray__time_set(m, g->k, nk, g->t)) {
    for (c = 0; c < 3; c++)
      xray__value_unknown(g->v[c], m->error);
    return;
  }
  for (c = 0; c < 3; c++)
    if (g->type[c])
      fine_result(m, g, c, &g->t[c * FINE]);
}

static int
run_registers(xray_machine *m, xray_report *r)
{
  struct regs *g = calloc(1, sizeof *g);
  int rc = 0;

  if (!g) {
    snprintf(m->error, sizeof m->error, "registers: out of memory");
    return -1;
  }
  if (choose_types(m, r, g))
    rc = -1;
  else if (!coarse_pass(m, g))
    fine_pass(m, g);
  free(g);
  return rc;
}

const xray_probe xray__probe_registers = {
  "registers", "registers the compiler can use at these flags (--types=TYPE,...)",
  run_registers
};

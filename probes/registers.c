/* Registers (X-Ray Sec. 3.6) with independent chains: <p1 += p0 | ... | p(n-1) += p0,
 * T, n> keeps n variables live.  While they fit in registers the loop runs
 * at the adders' rate; a spilled variable's chain goes through memory and
 * the time per statement jumps.  On cores with cheap spills (integers on
 * Zen 3) there is no jump, so the compiler's own code decides where it can
 * be read: the stack operands between the first and the last barrier of
 * the timed loop.  A coarse pass (n = 4, 8, ..., 40) brackets the first
 * spill; a fine pass times and checks every n around it. */
#include "xray-internal.h"

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

static int
run_registers(xray_machine *m, xray_report *r)
{
  static const char *const vec_candidates[] = { "__m512d", "__m256d", "__m128d",
                                                "float64x2_t" };
  static char text[3 * (COARSE + FINE)][400];
  const char *type[3] = { NULL, NULL, NULL };
  struct xray_cspec k[3 * (COARSE + FINE)];
  struct xray__timed t[3 * (COARSE + FINE)];
  xray_value *v[3] = { NULL, NULL, NULL };
  int first_spill[3], lo[3], c, j;
  size_t nk;

  if (m->types[0]) {
    char buf[256], *s, *save = NULL;
    snprintf(buf, sizeof buf, "%s", m->types);
    for (s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
      static char given[3][32];
      c = xray__type_class(s);
      if (type[c]) {
        snprintf(m->error, sizeof m->error, "registers: '%s' and '%s' are both %s types",
                 type[c], s, c == 0 ? "integer" : c == 1 ? "floating" : "vector");
        return -1;
      }
      snprintf(given[c], sizeof given[c], "%s", s);
      type[c] = given[c];
    }
  } else {
    /* The widest vector type the compiler offers at these flags. */
    struct xray_cspec probe[4];
    struct xray__timed a[4];
    type[0] = "long";
    type[1] = "double";
    for (j = 0; j < 4; j++) {
      probe[j].stmts = "p0 = p0 + p1";
      probe[j].type = vec_candidates[j];
      probe[j].nvars = 2;
      probe[j].unroll = 1;
      probe[j].style = XRAY__STYLE_BARRIER;
    }
    if (m->ops->kbuild(m, probe, 4) == 0) {
      for (j = 0; j < 4 && !type[2]; j++) {
        a[j].avail = m->ops->kinfo(m, (size_t) j, &a[j].stack);
        if (a[j].avail)
          type[2] = vec_candidates[j];
      }
      if (!type[2])
        snprintf(m->error, sizeof m->error, "%s %s offers none of __m512d, __m256d, "
                 "__m128d, float64x2_t", m->cc, m->cflags);
    }
    if (!type[2]) {
      xray_value *x = xray__report_param(r, class_names[2], NULL, NULL);
      if (!x)
        return -1;
      xray__value_unknown(x, m->error);
    }
  }
  for (c = 0; c < 3; c++)
    if (type[c] && !(v[c] = xray__report_param(r, class_names[c], NULL, NULL)))
      return -1;

  /* Coarse pass: static check only (timing too where it cannot be read). */
  for (c = 0, nk = 0; c < 3; c++)
    for (j = 0; j < COARSE; j++, nk++)
      /* Classes not asked for keep their slots with a one-statement kernel. */
      reg_spec(&k[nk], text[nk], sizeof text[nk], type[c] ? type[c] : "long",
               type[c] ? (j + 1) * REG_STEP : 2, type[c] ? (j + 1) * REG_STEP - 1 : 1);
  if (m->ops->kbuild(m, k, nk)) {
    for (c = 0; c < 3; c++)
      xray__value_unknown(v[c], m->error);
    return 0;
  }
  for (c = 0; c < 3; c++) {
    first_spill[c] = 0;
    lo[c] = 2;
    if (!type[c])
      continue;
    for (j = 0; j < COARSE; j++) {
      struct xray__timed *x = &t[c * COARSE + j];
      x->avail = m->ops->kinfo(m, (size_t) (c * COARSE + j), &x->stack);
      if (x->avail && x->stack < 0)
        x->t = m->ops->ktime(m, (size_t) (c * COARSE + j), &x->avail, &x->stack);
      if (!x->avail)
        break;
      if (x->stack > 0 && !first_spill[c])
        first_spill[c] = (j + 1) * REG_STEP;
      if (x->stack < 0 && j > 0 && !first_spill[c] && x->t > JUMP * t[c * COARSE + j - 1].t)
        first_spill[c] = (j + 1) * REG_STEP;
    }
    if (!t[c * COARSE].avail) {
      char why[200];
      snprintf(why, sizeof why, "%s %s does not offer %s at these flags", m->cc, m->cflags,
               type[c]);
      xray__value_unknown(v[c], why);
      type[c] = NULL;
      v[c] = NULL;
      continue;
    }
    if (!first_spill[c]) {
      char why[200];
      snprintf(why, sizeof why, "no spill of %s up to %d live variables", type[c], REG_MAX);
      xray__value_unknown(v[c], why);
      type[c] = NULL;
      v[c] = NULL;
      continue;
    }
    lo[c] = first_spill[c] - REG_STEP - 2;
    if (lo[c] < 2)
      lo[c] = 2;
  }

  /* Fine pass: every n from lo to lo + FINE - 1, timed and checked. */
  for (c = 0, nk = 0; c < 3; c++)
    for (j = 0; j < FINE; j++, nk++)
      reg_spec(&k[nk], text[nk], sizeof text[nk], type[c] ? type[c] : "long",
               type[c] ? lo[c] + j : 2, !type[c] ? 1 : 24 > lo[c] + j - 1 ? 24 : lo[c] + j - 1);
  for (c = 0; c < 3 && !type[c]; c++)
    ;
  if (c == 3)
    return 0;
  if (xray__time_set(m, k, nk, t)) {
    for (c = 0; c < 3; c++)
      xray__value_unknown(v[c], m->error);
    return 0;
  }
  for (c = 0; c < 3; c++) {
    struct xray__timed *x = &t[c * FINE];
    int stat = -1, timed = -1, agree = 1;
    char how[200];

    if (!type[c])
      continue;
    for (j = 0; j < FINE; j++) {
      agree &= x[j].agree;
      if (stat < 0 && x[j].stack > 0)
        stat = lo[c] + j - 1;
      if (timed < 0 && j > 0 && x[j].t > JUMP * x[j - 1].t)
        timed = lo[c] + j - 1;
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
               stat + 1, type[c], tim);
      xray__value_measured(v[c], stat, how);
    } else if (timed >= 0 && stat == -1) {
      snprintf(how, sizeof how, "timing: step at %d live %s (the code cannot be read)",
               timed + 1, type[c]);
      xray__value_measured(v[c], timed, how);
      v[c]->unconfirmed = !agree;
    } else
      xray__value_unknown(v[c], stat == -2 ? "the compiler's spills do not grow with the "
                                             "variables" : "no step in the time per statement");
  }
  return 0;
}

const xray_probe xray__probe_registers = {
  "registers", "registers the compiler can use at these flags (--types=TYPE,...)",
  run_registers
};

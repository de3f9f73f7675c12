/* The caches probe's report (see caches.c): each level's values from what
 * the curve, the model and the conflict sets established, with the checks
 * that confirm or doubt them; the count of levels; memory latency. */
#include "caches.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
set_unknown2(xray_value *a, xray_value *b, const char *msg, const char *method)
{
  xray__value_unknown(a, msg);
  xray__value_unknown(b, msg);
  snprintf(a->method, sizeof a->method, "%s", method);
  snprintf(b->method, sizeof b->method, "%s", method);
}

/* The values of cache level lv (2, 3, ...), in this order. */
static const char *const level_fields[4] = { "SIZE", "ASSOC", "LINE", "LATENCY" };

static void
add_level(xray_report *r, int lv, xray_value *v[4])
{
  char name[32], level[8];
  int f;

  snprintf(level, sizeof level, "%d", lv);
  for (f = 0; f < 4; f++) {
    snprintf(name, sizeof name, "XRAY_L%d_%s", lv, level_fields[f]);
    v[f] = xray__report_param(r, name, level, NULL);
  }
}

/* Every value the probe owns is in the output all the same, unknown,
 * where it cannot even start. */
void
caches_probe_unavailable(xray_report *r, xray_value *vlev)
{
  static const char why[] = "out of memory for the probe's bookkeeping (a memory limit such "
                            "as ulimit -v?)";
  xray_value *v[4];
  int i, j;

  xray__value_unknown(vlev, why);
  for (i = 2; i <= 3; i++) {
    add_level(r, i, v);
    for (j = 0; j < 4; j++)
      xray__value_unknown(v[j], why);
  }
  xray__value_unknown(xray__report_param(r, "XRAY_MEM_LATENCY", NULL, NULL), why);
}

/* Level l's capacity from the page-colour model alone (no conflict set
 * confirmed its ways), and its ways where anything gives them. */
static void
report_model_size(const struct level *l, xray_value *v[4], const char *method, int shared)
{
  char msg[XRAY__REASON_LEN];

  xray__value_measured(v[0], l->size, method);
  v[0]->effective = shared;
  /* A private level's capacity from the model alone, with no conflict
   * set to confirm its ways, is not confirmed: a neighbour's share of
   * the level moves the whole transition (589824 for a 1 MB L2 on Zen
   * 4, both halves of the draws alike). */
  if (!shared)
    xray__value_doubt(v[0],
                      "; not confirmed: the capacity comes from the model alone, "
                      "with no conflict set to confirm its ways");
  if (l->ways) {
    snprintf(msg, sizeof msg, "a minimal conflict set of %d whole pages", l->ways + 1);
    xray__value_measured(v[1], l->ways, msg);
  } else if (!l->conflict_ran && l->fit.err2 >= WAYS_SEPARATION * l->fit.err) {
    /* The model's ways alone only where no conflict test could run: one
     * that ran and failed has seen what the model did not (tree-PLRU
     * fitted 2 ways, clearly, for 10). */
    xray__value_measured(v[1], l->fit.A, method);
    v[1]->effective = shared;
    /* As its capacity: the model alone, no conflict set. */
    if (!shared)
      xray__value_doubt(v[1], "; not confirmed: the ways come from the model alone, with no "
                        "conflict set to confirm them");
  } else {
    if (l->conflict_ran)
      snprintf(msg, sizeof msg, "%s", l->wwhy);
    else
      snprintf(msg, sizeof msg,
               "%s%sthe page-colour model fits %d and %d ways about "
               "equally (error x%.2f), with the same capacity",
               l->wwhy, l->wwhy[0] ? "; " : "", l->fit.A, l->fit.A2, l->fit.err2 / l->fit.err);
    xray__value_unknown(v[1], msg);
    snprintf(v[1]->method, sizeof v[1]->method, "%s", method);
  }
}

/* Level l where the model established no capacity: unknown, or for a
 * shared last level what this process gets of it. */
static void
report_unfitted(const struct cc *c, const struct level *l, xray_value *v[4], char *method,
                size_t len)
{
  char msg[XRAY__REASON_LEN];

  if (l->fit.rms > FIT_RMS)
    /* Capacity and ways come from one model: if it does not explain
     * the transition, it has not identified the level. */
    snprintf(msg, sizeof msg,
             "the page-colour model does not fit the transition at "
             "%.0f-%.0f pages (rms %.3f > %.2f)",
             c->pt[l->a].k, c->pt[l->b].k, l->fit.rms, FIT_RMS);
  else
    snprintf(msg, sizeof msg,
             "the page-colour models that fit about equally disagree "
             "on the capacity (%.0f-%.0f pages): the level is not identified",
             l->fit.cap_lo, l->fit.cap_hi);
  set_unknown2(v[0], v[1], msg, method);
  if (!isnan(l->k50)) {
    /* A shared level whose ways other tenants take is no geometry to
     * fit; what this process gets of it is where half its loads miss. */
    snprintf(method, len,
             "effective: half the loads miss at %.0f pages "
             "(transition %.0f-%.0f pages); shared last level, %s",
             l->k50, c->pt[l->a].k, c->pt[l->b].k, msg);
    xray__value_measured(v[0], floor(l->k50 + 0.5) * (double) c->page, method);
    v[0]->effective = 1;
  }
}

/* Capacity and ways of level l: from a conflict set and the model, from
 * the model alone, or unknown. */
static void
report_geometry(const struct cc *c, const struct level *l, xray_value *v[4], int shared)
{
  char method[XRAY__METHOD_LEN];

  snprintf(method, sizeof method,
           "page-colour model fitted to the transition at %.0f-%.0f pages: %.0f colours "
           "x %d ways x %zu B, rms %.3f (next best: %d ways, error x%.2f)%s",
           c->pt[l->a].k, c->pt[l->b].k, l->fit.P, l->fit.A, c->page, l->fit.rms, l->fit.A2,
           l->fit.err > 0 ? l->fit.err2 / l->fit.err : 0,
           shared ? "; shared last level: what this process gets" : "");
  if (l->ways && !isnan(l->size) && !l->cwhy[0]) {
    snprintf(method, sizeof method,
             "ways: a minimal conflict set of %d whole pages; "
             "capacity: %.0f colours x %zu B, the power of two between the page-colour "
             "models fitted to the transition at %.0f-%.0f pages with LRU (%.0f colours) "
             "and with %s (%.0f)",
             l->ways + 1, l->qP, c->page, c->pt[l->a].k, c->pt[l->b].k, l->qhi,
             l->qused ? "the miss chance measured on one colour" : "optimal replacement", l->qlo);
    xray__value_measured(v[0], l->size, method);
    xray__value_measured(v[1], l->ways, method);
  } else if (l->ways && !isnan(l->size)) {
    snprintf(method, sizeof method,
             "ways: a minimal conflict set of %d whole pages; "
             "capacity: the page-colour model with %d ways fitted to the transition at "
             "%.0f-%.0f pages, %.0f colours x %zu B, rms %.3f",
             l->ways + 1, l->ways, c->pt[l->a].k, c->pt[l->b].k, l->fit.PA[l->ways], c->page,
             sqrt(l->fit.errA[l->ways] / l->fit.n));
    xray__value_measured(v[0], l->size, method);
    xray__value_measured(v[1], l->ways, method);
    /* The ways must make a power of two colours of the transition too:
     * a minimal set one page too large (an adaptive policy that let A + 1
     * pages of a colour miss too little for a while) gave 9 for 8. */
    xray__value_doubt(v[0], "; not confirmed: %s", l->cwhy);
    xray__value_doubt(v[1], "; not confirmed: %s", l->cwhy);
  } else if (!isnan(l->size))
    report_model_size(l, v, method, shared);
  else
    report_unfitted(c, l, v, method, sizeof method);
}

/* Whether v, read off a plateau at k pages, holds: not where the loads
 * there share lines of the level that serves them (caches_lines_shared),
 * which they may where the line is longer than the loads' step. */
static int
doubt_shared(struct cc *c, double k, xray_value *v)
{
  char why[XRAY__REASON_LEN];
  int shared;

  if (v->source != XRAY_SOURCE_MEASURED || v->unconfirmed)
    return 0;
  switch (shared = caches_lines_shared(c, k, why, sizeof why)) {
  case 1:
    xray__value_doubt(v, "; not confirmed: %s", why);
    break;
  case -1:
    xray__value_doubt(v, "; not confirmed: whether its loads share lines is not known (%s)", why);
    break;
  }
  return shared;
}

/* A plateau past a level whose lines the loads share (its line longer
 * than their step) averages in the hits on those lines: v, read off
 * plateau i, is not confirmed where a level before i is such a level. */
static void
doubt_after_shared(const struct shape *S, int i, xray_value *v)
{
  int j;

  for (j = 1; j < i; j++)
    if (S->L[j].shared_lines && v->source == XRAY_SOURCE_MEASURED && !v->unconfirmed) {
      xray__value_doubt(v, "; not confirmed: the L%d's line is longer than the loads' step, "
                        "and its plateau averages in the hits on its lines", j + 1);
      return;
    }
}

/* The checks of level i's capacity against its step, and its line. */
static void
report_checks(struct cc *c, struct shape *S, int i, xray_value *v[4])
{
  const struct level *l = &S->L[i];
  const int *first = S->first, *last = S->last;
  int f;

  /* The ways of a conflict set are confirmed by the capacity they give
   * with the transition's colours; a capacity in doubt takes them with it. */
  if (!isnan(l->size) && !caches_halves_agree(l, l->size / (double) c->page)) {
    /* Two halves of the draws that disagree saw the level change under
     * them (a neighbour's share of it moving): not confirmed. */
    for (f = 0; f < (l->ways ? 2 : 1); f++)
      xray__value_doubt(v[f],
                        "; the even and odd draws fit %.0f and %.0f pages, not both "
                        "within %.0f %% of %.0f",
                        l->half[0], l->half[1], 100 * HALVES_AGREE, l->size / (double) c->page);
  }
  /* The level holds its capacity: misses begin after its own plateau
   * and are all but complete where the next level's begins. */
  if (!isnan(l->size) && !v[0]->unconfirmed
      && (l->size / (double) c->page < c->pt[last[i]].k
          || l->size / (double) c->page > c->pt[first[i + 1]].k))
    for (f = 0; f < (l->ways ? 2 : 1); f++)
      xray__value_doubt(v[f],
                        "; not confirmed: %.0f pages is not between the end of its "
                        "plateau (%.0f) and the start of the next (%.0f)",
                        l->size / (double) c->page, c->pt[last[i]].k, c->pt[first[i + 1]].k);
  if (isnan(l->size) && isnan(l->k50))
    xray__value_unknown(v[2], "needs the level's capacity, which the model did not establish");
  else if (isnan(l->line)) {
    char why[XRAY__REASON_LEN];
    xray__value_unknown(v[2], l->why);
    /* No line, but later levels' latencies need to know whether the
     * loads share this level's lines. */
    S->L[i].shared_lines = caches_lines_shared(c, l->line_k, why, sizeof why) == 1;
  } else {
    xray__value_measured(v[2], l->line,
                         "pairs of loads s bytes apart in each page, beyond "
                         "the level");
    /* A line no longer than the loads' step is what the pairs can show;
     * a longer one shows as the step itself.  Its misses then come from
     * half the loads or fewer, which the conflict sets and the
     * transition's fit count as whole ones: the level's geometry goes
     * too. */
    if (l->line <= (double) c->step && doubt_shared(c, l->line_k, v[2]) == 1)
      for (f = 0, S->L[i].shared_lines = 1; f < 2; f++)
        if (v[f]->source == XRAY_SOURCE_MEASURED && !v[f]->unconfirmed)
          xray__value_doubt(v[f], "; not confirmed: the level's line is longer than the "
                            "loads' step (%zu bytes), and its misses are fewer than its loads",
                            c->step);
  }
}

/* Level i's latency: its plateau, where the curve can be trusted. */
static void
report_latency(struct cc *c, const struct shape *S, int i, xray_value *v)
{
  const struct level *l = &S->L[i];
  const int *first = S->first, *last = S->last;
  char method[XRAY__METHOD_LEN], msg[XRAY__REASON_LEN];

  snprintf(method, sizeof method, "plateau of the time per load at %.0f-%.0f pages%s",
           c->pt[first[i]].k, c->pt[last[i]].k,
           i == S->floor ? " (of each point's least draws: other tenants take the level "
                           "in phases, and its mean rises on)"
                         : "");
  if (!S->settled && last[i] - first[i] + 1 < PER_OCTAVE) {
    /* Short flat stretches of an unsettled curve are not levels one
     * can trust: their height moves from run to run. */
    snprintf(msg, sizeof msg,
             "the plateau at %.0f-%.0f pages is shorter than an octave "
             "on a curve that does not settle",
             c->pt[first[i]].k, c->pt[last[i]].k);
    xray__value_unknown(v, msg);
    return;
  }
  xray__value_measured(v, floor(l->lo + 0.5), method);
  v->exact = l->lo;
  if (c->m->core_hz > 0)
    v->ns = l->lo / c->m->core_hz * 1e9;
  doubt_after_shared(S, i, v);
  /* The last level of real hardware is shared with other tenants (its
   * capacity is this process's share): the height of its plateau moves
   * with their load from run to run, and no second view pins it. */
  if (c->m->hardware && i == S->nl - 1 && v->source == XRAY_SOURCE_MEASURED && !v->unconfirmed)
    xray__value_doubt(v,
                      "; not confirmed: a last level other tenants share, whose plateau "
                      "moves with their load");
  /* L2's loads share the L1D's lines where those are longer than the
   * step, and the step is the L1D's line only where that is known. */
  if (i == 1 && !c->step_known && v->source == XRAY_SOURCE_MEASURED && !v->unconfirmed)
    xray__value_doubt(v, "; not confirmed: the L1D's line is not known, and the loads may share "
                      "its lines");
}

/* The capacity of a shared last level i whose step is too wide to be one
 * level's (why; caches_count_levels says so only after a level with a
 * step of its own, on a settled curve of a machine with other tenants):
 * where half the loads miss, what this process gets of it (effective,
 * and confirmed only where the OS's figure agrees).  The commonest such
 * step is the level fading as other tenants take more of it the larger
 * the footprint; its geometry stays unknown, and were it two levels seen
 * as one, the share still lies between them. */
static void
report_fading(const struct cc *c, const struct shape *S, int i, xray_value *v, const char *why)
{
  char method[XRAY__METHOD_LEN];
  const struct level *l = &S->L[i];
  double k50 = isnan(l->k50) ? caches_half_way(c, S, l) : l->k50;

  if (!(k50 > 0))
    return;
  snprintf(method, sizeof method,
           "effective: half the loads miss at %.0f pages (transition %.0f-%.0f pages); "
           "shared last level: %s",
           k50, c->pt[l->a].k, c->pt[l->b].k, why);
  xray__value_measured(v, floor(k50 + 0.5) * (double) c->page, method);
  v->effective = 1;
}

/* The four values of level i + 1 in the report: -1 if they could not be
 * added.  why: the reason every level is unknown; lastwhy: the last
 * level's; unsettled: the reason for a level past those found where the
 * curve did not settle on memory ("": there is no such level). */
int
caches_report_level(struct cc *c, struct shape *S, xray_report *r, int i, const char *why,
                    const char *lastwhy, const char *unsettled)
{
  xray_value *v[4] = { 0 };
  int f, nl = S->nl;

  add_level(r, i + 1, v);
  if (!v[0] || !v[1] || !v[2] || !v[3])
    return -1;
  if (i >= nl || why[0]) {
    const char *no = why[0] ? why
        : unsettled[0]      ? unsettled
                            : "no such level: the time per load shows no further step";
    for (f = 0; f < 4; f++)
      xray__value_unknown(v[f], no);
    /* A step too wide to be one level leaves L2's plateau before it. */
    if (i == 1 && i < nl && !c->failed && caches_wide_step(c, S, i))
      report_latency(c, S, i, v[3]);
    return 0;
  }
  if (i == nl - 1 && lastwhy[0]) {
    for (f = 0; f < 3; f++)
      xray__value_unknown(v[f], lastwhy);
    report_fading(c, S, i, v[0], lastwhy);
  } else {
    report_geometry(c, &S->L[i], v, c->m->hardware && i == nl - 1 && S->settled);
    report_checks(c, S, i, v);
  }
  report_latency(c, S, i, v[3]);
  return 0;
}

/* Whether the count of levels holds, and the levels past L2 with it. */
void
caches_confirm_count(struct cc *c, const struct shape *S, xray_report *r, xray_value *vlev, int nl)
{
  xray_machine *m = c->m;
  char os_src[48], msg[200];
  double os_levels;
  int i, j, upto = nl == 2 ? nl : nl - 1, os_agrees;

  /* A step is a level of its own when the level's capacity is confirmed
   * (its ways by a conflict set, the colours a power of two between the
   * model's bounds, inside its own transition): every level but the last
   * (which may be shared and fade) must be, or the count may hold one
   * level in two steps (a shared L3 that other tenants take in two stages
   * read as an L4 on Zen 5, where the OS gave no level count to check).
   * With two levels only, L2 must be confirmed too, or the count may have
   * lost a level: other tenants may squeeze a shared level into L2's
   * step, and an L3 a few times the L2, with no page colours to sharpen
   * the L2's step, takes it into its own (a 2 MB L2 under a 6 MB L3 read
   * as one level of 5.6 MB).  One level alone holds only where the L1's
   * step goes to the plateau after it at once (caches_l1_pages): a small
   * L2 of long lines merges into a wide L1 step.  Where the OS's cache
   * topology gives the same count, that is the second view (not on a
   * machine that is not hardware, whose OS view is its truth). */
  os_agrees = m->hardware
      && xray__os_view(m, "XRAY_CACHE_LEVELS", &os_levels, os_src, sizeof os_src) == 0
      && os_levels == nl;
  if (vlev && vlev->source == XRAY_SOURCE_MEASURED && !os_agrees && nl == 1
      && !(caches_l1_pages(c, S) > 0))
    xray__value_doubt(vlev, "; not confirmed: the L1's step is gradual, so a small level may "
                      "lie inside it");
  if (vlev && vlev->source == XRAY_SOURCE_MEASURED && !os_agrees)
    for (i = 1; i < upto; i++) {
      char name[32];
      const xray_value *v;
      snprintf(name, sizeof name, "XRAY_L%d_SIZE", i + 1);
      if (!(v = xray_report_get(r, name)) || v->source != XRAY_SOURCE_MEASURED || v->unconfirmed) {
        xray__value_doubt(vlev,
                          "; not confirmed: the L%d capacity is not, so its step may "
                          "not be one level",
                          i + 1);
        break;
      }
    }
  /* Where the count is in doubt, so is every level past L2 (a step of
   * an L3 that other tenants take in two stages read as an L4 with a
   * latency of its own).  L2's values carry their own confirmation, but
   * for its capacity: where that is not confirmed either, the plateau
   * after L1 may be a later level's (a small L2 of long lines lost in the
   * L1's step left the L3's latency as L2's).  Where the count is not
   * even measured (the curve never settled), no level past L1 is sure. */
  if (vlev && (vlev->source != XRAY_SOURCE_MEASURED || vlev->unconfirmed)) {
    const xray_value *v2 = xray_report_get(r, "XRAY_L2_SIZE");
    int l2_sure = v2 && v2->source == XRAY_SOURCE_MEASURED && !v2->unconfirmed
               && vlev->source == XRAY_SOURCE_MEASURED;
    for (i = l2_sure ? 3 : 2; i <= nl; i++) {
      for (j = 0; j < 4; j++) {
        xray_value *v;
        snprintf(msg, sizeof msg, "XRAY_L%d_%s", i, level_fields[j]);
        v = (xray_value *) xray_report_get(r, msg);
        if (v && v->source == XRAY_SOURCE_MEASURED && !v->unconfirmed)
          xray__value_doubt(v,
                            "; not confirmed: the number of levels is not, so L%d may "
                            "not be a level",
                            i);
      }
    }
  }
}

/* Whether the count of levels is in doubt: unconfirmed, or not what the
 * OS says (which makes it unconfirmed once the probe ends).  A count in
 * doubt may lack the last level, and the plateau taken for memory's may
 * be that level's: an L3 that a virtual machine's nested page walks slow
 * to 50 ns, with no step of its own after L2's. */
static int
levels_in_doubt(xray_machine *m, xray_report *r)
{
  const xray_value *v = xray_report_get(r, "XRAY_CACHE_LEVELS");
  char src[48];
  double os;

  return v && v->source == XRAY_SOURCE_MEASURED
      && (v->unconfirmed
          || (xray__os_view(m, "XRAY_CACHE_LEVELS", &os, src, sizeof src) == 0 && os != v->value));
}

/* Memory's latency: the plateau at the end of the scan. */
void
caches_report_memory(struct cc *c, struct shape *S, xray_report *r, const char *why, int merged,
                     const char *unsettled)
{
  xray_machine *m = c->m;
  int *first = S->first, *last = S->last, nl = S->nl;
  char method[XRAY__METHOD_LEN];
  xray_value *vmem;

  vmem = xray__report_param(r, "XRAY_MEM_LATENCY", NULL, NULL);
  if (vmem) {
    /* Memory's plateau holds when the levels before it merged. */
    if (why[0] && !merged)
      xray__value_unknown(vmem, why);
    else if (!S->settled)
      xray__value_unknown(vmem, unsettled);
    else {
      /* The end of the scan: the plateau may still rise with the tail of
       * the last transition. */
      double lat = xray__median(S->sm + c->npt - 3, 3);
      snprintf(method, sizeof method,
               "plateau of the time per load at %.0f-%.0f pages "
               "(whole pages, large pages)",
               c->pt[first[nl]].k, c->pt[last[nl]].k);
      xray__value_measured(vmem, floor(lat + 0.5), method);
      vmem->exact = lat;
      if (m->core_hz > 0)
        vmem->ns = lat / m->core_hz * 1e9;
      if (levels_in_doubt(m, r))
        xray__value_doubt(vmem,
                          "; not confirmed: the number of levels is not, so this "
                          "plateau may be a level's");
      doubt_after_shared(S, nl, vmem);
      /* Memory's plateau is past every level: a quarter of its lines at
       * its first points must cost no less (a plateau of L3 hits and
       * misses, which another tenant's share can make flat, costs less
       * with fewer lines). */
      if (vmem->source == XRAY_SOURCE_MEASURED && !vmem->unconfirmed) {
        char cwhy[XRAY__REASON_LEN];
        int e = first[nl] + 1 <= last[nl] ? first[nl] + 1 : first[nl];
        if (caches_lines_shared(c, c->pt[e].k, cwhy, sizeof cwhy) == 2)
          xray__value_doubt(vmem, "; not confirmed: %s", cwhy);
      }
    }
  }
}

/* The count of levels into vlev, unless why says why there is none; a
 * last step so wide that it may be two levels seen as one sets why (for
 * L2) or lastwhy.  Returns whether it did; unsettled: the reason where
 * the curve never reached memory. */
int
caches_count_levels(struct cc *c, const struct shape *S, xray_value *vlev, char *why, char *lastwhy,
                    char *unsettled, size_t len)
{
  char method[XRAY__METHOD_LEN];
  int nl = S->nl, i, merged;

  /* The step to memory of a shared last level spans a few octaves at
   * most; one that spans more is two levels seen as one (a shared L3 of
   * which other tenants leave little, just past a private L2: its
   * capacity read 4-8 MB for a 1 MB L2 on Zen 4 and Zen 5), and neither
   * the level count nor any capacity from it holds.  (A private level's
   * step may be wider: a 4-way or tree-PLRU L2 under random placement
   * spans up to 14 times; a simulation has no other tenants.)  After a
   * level with a step of its own, such a step is the shared level fading
   * as other tenants take it: only its own geometry is lost, and its
   * capacity is the share this process gets (report_fading). */
  i = nl - 1;
  merged = !why[0] && !c->failed && caches_wide_step(c, S, i);
  lastwhy[0] = 0;
  if (merged)
    snprintf(i == 1 ? why : lastwhy, len,
             "the step after level %d spans %.0f-%.0f "
             "pages, more than a factor %d: %s",
             i + 1, c->pt[S->L[i].a].k, c->pt[S->L[i].b].k, MERGED_SPAN,
             i == 1 ? "two levels may have merged into one (a shared level "
                      "other tenants leave little of)"
                    : "a shared level other tenants take, or two "
                      "levels seen as one");
  if (why[0])
    xray__value_unknown(vlev, why);
  else if (!S->settled) {
    snprintf(unsettled, len,
             "the time per load does not settle on a memory "
             "plateau by %.0f pages (one octave long, twice the level before it%s)%s: levels "
             "beyond the %d found may follow",
             c->pt[c->npt - 1].k, c->m->hardware ? ", 50 ns or more" : "",
             c->out_of_room || caches_short_of_lines(c)
                 ? " within the memory this process may map (a limit such as "
                   "ulimit -v)"
                 : c->out_of_time ? " within the time budget (--budget)"
                                  : "",
             nl);
    xray__value_unknown(vlev, unsettled);
  } else {
    snprintf(method, sizeof method,
             "steps in the time per load through %g-%.0f random "
             "whole pages",
             K_MIN, c->pt[c->npt - 1].k);
    xray__value_measured(vlev, nl, method);
    if (S->knee[0] > 0)
      xray__value_doubt(vlev,
                        "; not confirmed: level %d shows only as a bend in the floor of the "
                        "step after L2 (rising %.0f%% a point, then %.0f%%), within the noise "
                        "of one step",
                        S->nl, 100 * (exp(S->knee[0]) - 1), 100 * (exp(S->knee[1]) - 1));
  }
  return merged;
}

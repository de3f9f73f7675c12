/* xray counters' results written out (counters.c places the events):
 * text, JSON, and the defines of the shell and header formats. */
#include "counters.h"

#include <stdio.h>
#include <string.h>

/* The event that best represents category k: placed there, highest score
 * (the first on a tie); -1 if none. */
static long
best_of(const xray_counters *c, int k)
{
  long best = -1;
  size_t i;

  for (i = 0; i < c->n; i++)
    if (c->ev[i].cat == k && (best < 0 || c->ev[i].score[k] > c->ev[best].score[k]))
      best = (long) i;
  return best;
}

/* Categories of this run: the branch ones, and two per data level. */
static int
ncat(const xray_counters *c)
{
  return XRAY__NBRANCH + 2 * c->nlev;
}

/* The same and L2-PREFETCH where the prefetch signature was taken: their
 * number, and the j-th one's index. */
static int
ncat_all(const xray_counters *c)
{
  return ncat(c) + (c->pf != 0);
}

static int
cat_at(const xray_counters *c, int j)
{
  return j < ncat(c) ? j : XRAY__PF;
}

static void
write_text(const xray_counters *c, FILE *f)
{
  char label[16], def[64], desc[96];
  size_t i;
  int k, b;

  fprintf(f, "events on %s, over the branch benchmarks built with %s\n", c->machine, c->compiler);
  fprintf(f, "expected per iteration of benchmarks a..g (from the compiled code):\n");
  for (k = 0; k < XRAY__NBRANCH; k++) {
    xray__counter_cat_text(k, label, sizeof label, def, sizeof def, desc, sizeof desc);
    fprintf(f, "  %-8s", label);
    for (b = 0; b < XRAY__NBENCH; b++)
      fprintf(f, " %5.2f", c->rows[k][b]);
    fprintf(f, "   %s\n", desc);
  }
  if (c->nlev) {
    fprintf(f, "expected per load of chases over");
    for (b = 0; b <= c->nlev; b++)
      fprintf(f, " %.0fK", c->foot[b] / 1024);
    fprintf(f, " (levels of");
    for (b = 0; b < c->nlev; b++)
      fprintf(f, " %.0fK", c->level[b] / 1024);
    fprintf(f, "):\n");
    for (k = XRAY__NBRANCH; k < ncat(c); k++) {
      xray__counter_cat_text(k, label, sizeof label, def, sizeof def, desc, sizeof desc);
      fprintf(f, "  %-8s", label);
      for (b = 0; b <= c->nlev; b++)
        fprintf(f, " %5.2f", xray__counter_cache_expected(k, b));
      fprintf(f, "   %s\n", desc);
    }
  } else
    fprintf(f, "no cache signatures: %s\n", c->cwhy);
  if (c->pf) {
    fprintf(f, "prefetch signature: per load, chasing %.0fK in blocks of", 4 * c->level[1] / 1024);
    for (b = 0; b < XRAY__NPPB; b++)
      fprintf(f, " %d", xray__counter_ppb[b]);
    fprintf(f, " pages\n");
  } else
    fprintf(f, "no prefetch signature: %s\n", c->pfwhy);
  for (i = 0; i < c->n; i++) {
    const struct xray__event *e = &c->ev[i];
    int best = 0;
    for (k = 1; k < ncat(c); k++)
      if (e->score[k] > e->score[best])
        best = k;
    if (e->cat == XRAY__PF)
      best = XRAY__PF;
    fprintf(f, "%-32s %-8s", e->name, e->cat >= 0 ? xray__counter_cat_label(e->cat) : "-");
    if (!e->counted && e->ccounted != 1) {
      fprintf(f, " %s\n", e->why);
      continue;
    }
    fprintf(f, " score %.2f%s", e->score[best], e->cat >= 0 ? "" : " (best)");
    if (e->counted) {
      fprintf(f, " branches");
      for (b = 0; b < XRAY__NBENCH; b++)
        fprintf(f, " %.2f", e->slope[b] * e->r2[b]);
    }
    if (e->ccounted == 1) {
      fprintf(f, " loads");
      for (b = 0; b <= c->nlev; b++)
        fprintf(f, " %.2f", e->sig[b] * e->sr2[b]);
    }
    if (c->pf && e->pfcounted) {
      fprintf(f, " pages");
      for (b = 0; b < XRAY__NPPB; b++)
        fprintf(f, " %.2f", e->pf[b]);
    }
    fprintf(f, "%s%s\n", e->why[0] ? "; " : "", e->why);
  }
}

static void
json_array(FILE *f, const char *key, const double *v, int n)
{
  int i;

  fprintf(f, ", \"%s\": [", key);
  for (i = 0; i < n; i++)
    fprintf(f, "%s%.4f", i ? ", " : "", v[i]);
  fprintf(f, "]");
}

static void
write_json(const xray_counters *c, FILE *f)
{
  size_t i;
  int k, b;

  fprintf(f, "{\n  \"machine\": ");
  xray__json_string(f, c->machine);
  fprintf(f, ",\n  \"compiler\": ");
  xray__json_string(f, c->compiler);
  fprintf(f, ",\n  \"threshold\": %g", XRAY__PLACE);
  json_array(f, "levels", c->level, c->nlev);
  json_array(f, "footprints", c->foot, c->nlev ? c->nlev + 1 : 0);
  if (c->pf) {
    double ppb[XRAY__NPPB];
    for (b = 0; b < XRAY__NPPB; b++)
      ppb[b] = xray__counter_ppb[b];
    json_array(f, "pages_per_block", ppb, XRAY__NPPB);
  }
  fprintf(f, ",\n  \"expected\": {");
  for (k = 0; k < ncat(c); k++) {
    double row[XRAY__NFOOT];
    for (b = 0; k >= XRAY__NBRANCH && b <= c->nlev; b++)
      row[b] = xray__counter_cache_expected(k, b);
    fprintf(f, "%s\"%s\": [", k ? ", " : "", xray__counter_cat_label(k));
    for (b = 0; b < (k < XRAY__NBRANCH ? XRAY__NBENCH : c->nlev + 1); b++)
      fprintf(f, "%s%g", b ? ", " : "", k < XRAY__NBRANCH ? c->rows[k][b] : row[b]);
    fprintf(f, "]");
  }
  fprintf(f, "},\n  \"events\": [");
  for (i = 0; i < c->n; i++) {
    const struct xray__event *e = &c->ev[i];
    fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
    xray__json_string(f, e->name);
    fprintf(f, ", \"category\": ");
    if (e->cat >= 0)
      fprintf(f, "\"%s\", \"score\": %.4f", xray__counter_cat_label(e->cat), e->score[e->cat]);
    else
      fprintf(f, "null");
    if (e->counted) {
      json_array(f, "slopes", e->slope, XRAY__NBENCH);
      json_array(f, "r2", e->r2, XRAY__NBENCH);
    }
    if (e->ccounted == 1) {
      json_array(f, "per_load", e->sig, c->nlev + 1);
      json_array(f, "per_load_r2", e->sr2, c->nlev + 1);
    }
    if (c->pf && e->pfcounted)
      json_array(f, "per_load_by_pages", e->pf, XRAY__NPPB);
    fprintf(f, ", \"scores\": {");
    for (b = 0; b < ncat_all(c); b++)
      fprintf(f, "%s\"%s\": %.4f", b ? ", " : "", xray__counter_cat_label(cat_at(c, b)), e->score[cat_at(c, b)]);
    fprintf(f, "}");
    if (e->why[0]) {
      fprintf(f, ", \"reason\": ");
      xray__json_string(f, e->why);
    }
    fprintf(f, "}");
  }
  fprintf(f, "\n  ]");
  if (!c->nlev) {
    fprintf(f, ",\n  \"no_cache_signatures\": ");
    xray__json_string(f, c->cwhy);
  }
  if (!c->pf) {
    fprintf(f, ",\n  \"no_prefetch_signature\": ");
    xray__json_string(f, c->pfwhy);
  }
  fprintf(f, "\n}\n");
}

/* NAME='event' for the shell, or #define NAME "event"; names that would
 * need escaping are left out, with a comment. */
static void
write_defines(const xray_counters *c, FILE *f, int header)
{
  const char *open = header ? "/*" : "#", *close = header ? " */" : "";
  char label[16], def[64], desc[96];
  int j;

  for (j = 0; j < ncat_all(c); j++) {
    int k = cat_at(c, j);
    long i = best_of(c, k);
    xray__counter_cat_text(k, label, sizeof label, def, sizeof def, desc, sizeof desc);
    if (i < 0)
      fprintf(f, "%s %s unknown: no event scored %.1f or more as %s%s\n", open, def, XRAY__PLACE, desc,
              close);
    else if (strpbrk(c->ev[i].name, "'\"\\\n"))
      fprintf(f, "%s %s unknown: its event's name holds a quote or a backslash%s\n", open, def,
              close);
    else if (header)
      fprintf(f, "#define %s \"%s\" /* %s, score %.3f */\n", def, c->ev[i].name, desc,
              c->ev[i].score[k]);
    else
      fprintf(f, "%s='%s'\n# %s score %.3f\n", def, c->ev[i].name, def, c->ev[i].score[k]);
  }
  if (!c->nlev)
    fprintf(f, "%s no cache events: %s%s\n", open, c->cwhy, close);
}

int
xray_counters_write(const xray_counters *c, FILE *f, xray_format fmt)
{
  if (fmt == XRAY_FORMAT_JSON)
    write_json(c, f);
  else if (fmt == XRAY_FORMAT_SHELL || fmt == XRAY_FORMAT_HEADER)
    write_defines(c, f, fmt == XRAY_FORMAT_HEADER);
  else
    write_text(c, f);
  return ferror(f) ? -1 : 0;
}

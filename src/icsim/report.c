/* What xray icsim and AX_XRAY_CODE_FITS tell about a function: for each
 * loop, its references' categories at the loop's level and whether it fits
 * the cache; for the function, whether all its innermost loops fit.
 *
 * In an object file the code's address is fixed only by the link, at a
 * multiple of the function's alignment: the function is analysed at every
 * 16-byte placement within a cache line (which changes the lines a loop
 * touches), and a loop fits only where it fits at each.  Moving the code by
 * whole lines only renames the sets its lines fall in. */
#include "icsim/private.h"
#include "measure/measure.h"
#include "xray.h"

#include <stdlib.h>
#include <string.h>

struct loopsum {
  uint64_t header;
  size_t depth, refs, cat[4];
  int innermost, fits;
};

/* The category of reference r at loop l (one of the loops holding it). */
static int
category_at(const struct xray__icsim *s, const struct xray__icref *r, size_t l)
{
  int lp, k = 0;

  for (lp = s->node_loop[r->node]; lp >= 0; lp = s->loop[lp].parent, k++)
    if ((size_t) lp == l)
      return r->level[k];
  return -1;
}

/* Loop l of analysis s summed up; fits: no always-miss and no conflict at
 * its level. */
static void
summarise(const struct xray__icsim *s, size_t l, struct loopsum *o)
{
  size_t r, k;

  memset(o, 0, sizeof *o);
  o->header = s->p->b[s->node_block[s->loop[l].header]].insn[0];
  o->depth = s->loop[l].depth;
  o->innermost = 1;
  for (k = 0; k < s->nloops; k++)
    if (s->loop[k].parent == (int) l)
      o->innermost = 0;
  for (r = 0; r < s->nrefs; r++) {
    int c = bit(s->loop[l].nodes, s->ref[r].node) ? category_at(s, &s->ref[r], l) : -1;
    if (c >= 0) {
      o->cat[c]++;
      o->refs++;
    }
  }
  o->fits = !o->cat[XRAY__IC_MISS] && !o->cat[XRAY__IC_CONFLICT];
}

/* Copy of program p with every address moved by d bytes. */
static int
shifted(const struct xray__icread *in, uint64_t d, struct xray__icread *out)
{
  size_t i;

  *out = *in;
  out->b = malloc((in->nb + 1) * sizeof *out->b);
  out->insn = malloc((in->ninsn + 1) * sizeof *out->insn);
  if (!out->b || !out->insn)
    return -1;
  for (i = 0; i < in->ninsn; i++)
    out->insn[i] = in->insn[i] + d;
  for (i = 0; i < in->nb; i++) {
    out->b[i] = in->b[i];
    out->b[i].insn = out->insn + (in->b[i].insn - in->insn);
    out->b[i].end += d;
  }
  out->prog = (struct xray__icprog){ out->b, out->nb, out->f, out->nf, 0 };
  return 0;
}

struct funcsum {
  struct loopsum loop[64];
  size_t nloops, nblocks, ninst, placements;
  int fits, relocatable;
  unsigned long iterations; /* 0: no totals */
  struct xray__ictotals st, tr; /* static and trace-driven totals */
};

/* Totals of the path that runs each loop's header iterations times per
 * entry, statically and by the trace, into o.  0, or -1 with why. */
static int
totals(struct xray__icsim *s, unsigned long iterations, struct funcsum *o, char *err, size_t errlen)
{
  struct xray__icpath path = { NULL, 0, iterations };

  o->iterations = iterations;
  memset(&o->tr, 0, sizeof o->tr);
  if (xray__icsim_static(s, &path, &o->st) || xray__icsim_trace(s, &path, &o->tr)) {
    snprintf(err, errlen, "%s", s->error);
    return -1;
  }
  return 0;
}

/* Function func of file: its loops at placement 0, and whether every
 * innermost loop fits at every placement.  0, or -1 with why. */
static int
analyse_function(const char *file, const char *func, const unsigned long g[4], struct funcsum *o,
                 char *notes, size_t nlen, char *err, size_t errlen)
{
  struct xray__icread rd;
  uint64_t d;
  int rc = 0;

  memset(o, 0, sizeof *o);
  o->fits = 1;
  if (xray__icsim_read(file, func, &rd, err, errlen))
    return -1;
  snprintf(notes, nlen, "%s", rd.notes);
  o->relocatable = rd.relocatable;
  for (d = 0; rc == 0 && d < (rd.relocatable ? g[2] : 1); d += 16) {
    struct xray__icread moved;
    struct xray__icsim s;
    size_t l;
    if (shifted(&rd, d, &moved)) {
      snprintf(err, errlen, "out of memory");
      rc = -1;
    } else if (xray__icsim_analyse(&s, &moved.prog, g[0], g[1], g[2])) {
      snprintf(err, errlen, "%s: %s", func, s.error);
      rc = -1;
    } else if (d == 0 && g[3] && totals(&s, g[3], o, err, errlen))
      rc = -1;
    for (l = 0; rc == 0 && l < s.nloops; l++) {
      struct loopsum ls;
      summarise(&s, l, &ls);
      if (d == 0 && o->nloops < 64)
        o->loop[o->nloops++] = ls;
      else if (l < o->nloops)
        o->loop[l].fits &= ls.fits;
      if (ls.innermost && !ls.fits)
        o->fits = 0;
    }
    if (rc == 0) {
      o->nblocks = s.nnodes;
      o->ninst = s.ninst;
      o->placements++;
    }
    if (moved.b && moved.insn)
      xray__icsim_free(&s);
    free(moved.b);
    free(moved.insn);
  }
  xray__icsim_read_free(&rd);
  return rc;
}

static void
write_text(FILE *f, const char *func, const struct funcsum *o, const char *notes)
{
  size_t l;

  fprintf(f, "%s: %zu block instance%s in %zu function instance%s, %zu loop%s; %s\n", func,
          o->nblocks, o->nblocks == 1 ? "" : "s", o->ninst, o->ninst == 1 ? "" : "s", o->nloops,
          o->nloops == 1 ? "" : "s",
          o->fits ? "its innermost loops fit" : "an innermost loop does NOT fit");
  for (l = 0; l < o->nloops; l++) {
    const struct loopsum *ls = &o->loop[l];
    fprintf(f,
            "  loop at %#llx, depth %zu%s: %zu references: %zu always-hit, %zu "
            "always-miss, %zu first-miss, %zu conflict; %s\n",
            (unsigned long long) ls->header, ls->depth, ls->innermost ? " (innermost)" : "",
            ls->refs, ls->cat[XRAY__IC_HIT], ls->cat[XRAY__IC_MISS], ls->cat[XRAY__IC_FIRST],
            ls->cat[XRAY__IC_CONFLICT],
            ls->fits ? "fits: misses only in its first iteration"
                     : "does not fit: misses in every iteration");
    fprintf(f, "    misses at most %zu in the first iteration, %zu%s in each further one\n",
            ls->cat[XRAY__IC_MISS] + ls->cat[XRAY__IC_FIRST] + ls->cat[XRAY__IC_CONFLICT],
            ls->cat[XRAY__IC_MISS] + ls->cat[XRAY__IC_CONFLICT],
            ls->cat[XRAY__IC_CONFLICT] ? " at most" : "");
  }
  if (o->iterations)
    fprintf(f,
            "  each loop's header run %lu times per entry: %llu references, %llu misses%s "
            "(a trace-driven simulation of the same path: %llu misses)\n",
            o->iterations, (unsigned long long) o->st.refs, (unsigned long long) o->st.misses,
            o->st.truncated ? " in the first 1e9 references" : "",
            (unsigned long long) o->tr.misses);
  if (o->relocatable)
    fprintf(f, "  (an object file: analysed at %zu placements 16 bytes apart within a line)\n",
            o->placements);
  if (notes[0])
    fprintf(f, "  not followed: %s\n", notes);
}

static void
write_json(FILE *f, const char *func, const struct funcsum *o, const char *notes, int first)
{
  size_t l;

  fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
  xray__json_string(f, func);
  fprintf(f,
          ", \"blocks\": %zu, \"instances\": %zu, \"placements\": %zu, \"fits\": %s,"
          "\n     \"not_followed\": ",
          o->nblocks, o->ninst, o->placements, o->fits ? "true" : "false");
  xray__json_string(f, notes);
  if (o->iterations)
    fprintf(f,
            ",\n     \"totals\": {\"iterations\": %lu, \"references\": %llu, \"misses\": %llu, "
            "\"trace_misses\": %llu, \"truncated\": %s}",
            o->iterations, (unsigned long long) o->st.refs, (unsigned long long) o->st.misses,
            (unsigned long long) o->tr.misses, o->st.truncated ? "true" : "false");
  fprintf(f, ",\n     \"loops\": [");
  for (l = 0; l < o->nloops; l++) {
    const struct loopsum *ls = &o->loop[l];
    fprintf(f,
            "%s\n      {\"header\": %llu, \"depth\": %zu, \"innermost\": %s, "
            "\"references\": %zu, \"always_hit\": %zu, \"always_miss\": %zu, "
            "\"first_miss\": %zu, \"conflict\": %zu, \"fits\": %s}",
            l ? "," : "", (unsigned long long) ls->header, ls->depth,
            ls->innermost ? "true" : "false", ls->refs, ls->cat[XRAY__IC_HIT],
            ls->cat[XRAY__IC_MISS], ls->cat[XRAY__IC_FIRST], ls->cat[XRAY__IC_CONFLICT],
            ls->fits ? "true" : "false");
  }
  fprintf(f, "]}");
}

int
xray_icsim(FILE *f, const char *file, const char *const *functions, size_t n, unsigned long size,
           unsigned long ways, unsigned long line, unsigned long iterations, int json, char *err,
           size_t errlen)
{
  const unsigned long g[4] = { size, ways, line, iterations };
  char **all = NULL, notes[400];
  size_t nall = 0, i;
  int rc = 0;

  if (n == 0) {
    if (xray__icsim_functions(file, &all, &nall, err, errlen))
      return -1;
    functions = (const char *const *) all;
    n = nall;
  }
  if (json) {
    fprintf(f, "{\"file\": ");
    xray__json_string(f, file);
    fprintf(f,
            ", \"cache\": {\"size\": %lu, \"ways\": %lu, \"line\": %lu},\n "
            "\"functions\": [",
            size, ways, line);
  } else
    fprintf(f, "%s, for a cache of %lu bytes, %lu ways, %lu-byte lines:\n", file, size, ways, line);
  for (i = 0; i < n && rc == 0; i++) {
    struct funcsum o;
    rc = analyse_function(file, functions[i], g, &o, notes, sizeof notes, err, errlen);
    if (rc == 0 && json)
      write_json(f, functions[i], &o, notes, i == 0);
    else if (rc == 0)
      write_text(f, functions[i], &o, notes);
  }
  if (json)
    fprintf(f, "]}\n");
  for (i = 0; i < nall; i++)
    free(all[i]);
  free(all);
  return ferror(f) ? -1 : rc;
}

int
xray_icsim_fits(const char *file, const char *function, unsigned long size, unsigned long ways,
                unsigned long line, char *err, size_t errlen)
{
  const unsigned long g[4] = { size, ways, line, 0 };
  struct funcsum o;
  char notes[400];

  if (analyse_function(file, function, g, &o, notes, sizeof notes, err, errlen))
    return -1;
  return o.fits;
}

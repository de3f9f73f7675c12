/* Static instruction-cache simulation: the analysis (see icsim.h).
 *
 *  1. Function instances: a depth-first walk of the call graph from the
 *     root turns it into a tree (paper Sec. 4.1); recursion is refused.
 *  2. Nodes: each instance's blocks.  A block ending in a call leads to
 *     the callee instance's entry, whose returns lead to the block's
 *     fall-through in the caller.
 *  3. References: the program lines each node's instructions touch, in
 *     order, one reference per line and block.
 *  4. Loops (loops.c).
 *  5. Abstract cache states (paper Fig. 2) by iterating to a fixed point:
 *     for a set-associative LRU cache, upper bounds of each line's age
 *     (must: surely cached if under the ways) and lower bounds (may:
 *     possibly cached), joined by intersection and union.  For one way
 *     these are the paper's states.
 *  6. Categories (paper Sec. 4.2): always-hit where the line is surely
 *     cached; always-miss where it cannot be; first-miss where, once
 *     loaded, it stays (fewer other lines of its set than ways are
 *     referenced where control can go from here, or within the loop, for a
 *     loop's category); conflict otherwise. */
#include "icsim/private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ABSENT 0xff

/* --- instances and nodes --------------------------------------------- */

static int
add_instance(struct xray__icsim *s, size_t func, int parent, size_t site, size_t depth)
{
  const struct xray__icprog *p = s->p;
  const struct xray__icfunc *f = &p->f[func];
  size_t me = s->ninst, i;
  int a;

  if (s->ninst >= 10000) {
    snprintf(s->error, sizeof s->error,
             "more than 10000 function instances: the call tree under "
             "the root is too large to analyse; name a function nearer the leaves");
    return -1;
  }
  if (depth > 64) {
    snprintf(s->error, sizeof s->error, "calls nest deeper than 64 (recursion through %s?)",
             f->name);
    return -1;
  }
  for (a = parent; a >= 0; a = s->inst[a].parent)
    if (s->inst[a].func == func) {
      snprintf(s->error, sizeof s->error, "%s is recursive: static simulation needs a call tree",
               f->name);
      return -1;
    }
  s->inst = realloc(s->inst, (me + 1) * sizeof *s->inst);
  if (!s->inst)
    return -1;
  s->inst[me].func = func;
  s->inst[me].base = s->nnodes;
  s->inst[me].parent = parent;
  s->inst[me].site = site;
  s->ninst++;
  s->nnodes += f->n;
  for (i = 0; i < f->n; i++) {
    int c = p->b[f->first + i].call;
    if (c < 0)
      continue;
    if ((size_t) c >= p->nf) {
      snprintf(s->error, sizeof s->error, "%s calls function %d, which the program lacks", f->name,
               c);
      return -1;
    }
    if (add_instance(s, (size_t) c, (int) me, s->inst[me].base + i, depth + 1))
      return -1;
  }
  return 0;
}

int
xray__icsim_successors(const struct xray__icsim *s, size_t n, size_t out[2])
{
  const struct xray__icprog *p = s->p;
  size_t in = s->node_inst[n];
  const struct xray__icblock *b = &p->b[s->node_block[n]];
  size_t first = p->f[s->inst[in].func].first;
  int k = 0, j;

  if (b->call >= 0) {
    out[0] = s->inst[s->node_callee[n]].base;
    return 1;
  }
  for (j = 0; j < 2; j++)
    if (b->succ[j] >= 0)
      out[k++] = s->inst[in].base + (size_t) b->succ[j] - first;
  if (k == 0 && s->inst[in].parent >= 0) {
    /* A return: to the call site's fall-through. */
    size_t site = s->inst[in].site, pin = (size_t) s->inst[in].parent;
    const struct xray__icblock *cb = &p->b[s->node_block[site]];
    if (cb->succ[0] >= 0)
      out[k++] = s->inst[pin].base + (size_t) cb->succ[0] - p->f[s->inst[pin].func].first;
  }
  return k;
}

static int
make_nodes(struct xray__icsim *s)
{
  size_t i, j;

  if (add_instance(s, s->p->root, -1, 0, 0))
    return -1;
  s->node_block = malloc(s->nnodes * sizeof *s->node_block);
  s->node_inst = malloc(s->nnodes * sizeof *s->node_inst);
  s->node_callee = calloc(s->nnodes, sizeof *s->node_callee);
  if (!s->node_block || !s->node_inst || !s->node_callee)
    return -1;
  for (i = 1; i < s->ninst; i++)
    s->node_callee[s->inst[i].site] = i;
  for (i = 0; i < s->ninst; i++)
    for (j = 0; j < s->p->f[s->inst[i].func].n; j++) {
      s->node_block[s->inst[i].base + j] = s->p->f[s->inst[i].func].first + j;
      s->node_inst[s->inst[i].base + j] = i;
    }
  return 0;
}

/* --- program lines and references ------------------------------------ */

/* Program line ids by line address: open addressing in hash (cap a power
 * of two, entries id + 1, 0 empty). */
static size_t
line_id(struct xray__icsim *s, size_t *hash, size_t cap, uint64_t addr)
{
  size_t h = (size_t) ((addr * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (cap - 1);

  while (hash[h] && s->line_addr[hash[h] - 1] != addr)
    h = (h + 1) & (cap - 1);
  if (!hash[h]) {
    s->line_addr[s->nlines] = addr;
    hash[h] = ++s->nlines;
  }
  return hash[h] - 1;
}

/* Instructions of block b touching line address a, the lines taken in
 * ascending order: *first is the first instruction not wholly before a. */
static size_t
insns_on(const struct xray__icsim *s, const struct xray__icblock *b, uint64_t a, size_t *first)
{
  size_t i;

  while (*first < b->ninsn
         && ((*first + 1 < b->ninsn ? b->insn[*first + 1] : b->end) - 1) / s->line < a)
    (*first)++;
  for (i = *first; i < b->ninsn && b->insn[i] / s->line <= a; i++)
    ;
  return i - *first;
}

static int
make_refs(struct xray__icsim *s)
{
  const struct xray__icprog *p = s->p;
  size_t n, cap = 0, lcap = 0, hcap = 64, *hash;

  for (n = 0; n < p->nb; n++)
    if (p->b[n].ninsn)
      lcap += (size_t) ((p->b[n].end - 1) / s->line - p->b[n].insn[0] / s->line + 1);
  while (hcap < 2 * lcap)
    hcap *= 2;
  s->line_addr = malloc((lcap + 1) * sizeof *s->line_addr);
  s->node_ref = malloc((s->nnodes + 1) * sizeof *s->node_ref);
  hash = calloc(hcap, sizeof *hash);
  if (!s->line_addr || !s->node_ref || !hash) {
    free(hash);
    return -1;
  }
  for (n = 0; n < s->nnodes; n++) {
    const struct xray__icblock *b = &p->b[s->node_block[n]];
    uint64_t a;
    size_t first = 0;
    s->node_ref[n] = s->nrefs;
    if (!b->ninsn)
      continue;
    for (a = b->insn[0] / s->line; a <= (b->end - 1) / s->line; a++) {
      if (s->nrefs == cap) {
        struct xray__icref *r = realloc(s->ref, (2 * cap + 64) * sizeof *s->ref);
        if (!r) {
          free(hash);
          return -1;
        }
        s->ref = r;
        cap = 2 * cap + 64;
      }
      memset(&s->ref[s->nrefs], 0, sizeof *s->ref);
      s->ref[s->nrefs].node = n;
      s->ref[s->nrefs].line = line_id(s, hash, hcap, a);
      s->ref[s->nrefs].insns = insns_on(s, b, a, &first);
      s->nrefs++;
    }
  }
  s->node_ref[s->nnodes] = s->nrefs;
  free(hash);
  return 0;
}

/* --- abstract cache states --------------------------------------------- */

struct flow {
  size_t *set_first, *set_line; /* lines of each set: set_line[set_first[s]..] */
  size_t *pred, *pred_first; /* predecessors of each node */
  unsigned char *must, *may; /* out states, nlines per node */
  unsigned char *reached;
};

static size_t
set_of(const struct xray__icsim *s, size_t line)
{
  return (size_t) (s->line_addr[line] % s->sets);
}

/* An access to line x in a must (upper bounds) or may (lower bounds)
 * state: x becomes youngest; lines that were younger than x (must), or
 * no older (may), age by one; a line as old as the ways is gone. */
static void
access_line(const struct xray__icsim *s, const struct flow *f, unsigned char *st, size_t x, int may)
{
  size_t set = set_of(s, x), i;
  unsigned h = st[x] == ABSENT ? (unsigned) s->ways : st[x];

  for (i = f->set_first[set]; i < f->set_first[set + 1]; i++) {
    size_t y = f->set_line[i];
    if (y == x || st[y] == ABSENT || (may ? st[y] > h : st[y] >= h))
      continue;
    st[y] = st[y] + 1u >= s->ways ? ABSENT : (unsigned char) (st[y] + 1);
  }
  st[x] = 0;
}

/* in = the join of node n's predecessors' out states (must: the oldest
 * bound, may: the youngest), and for the root's entry an empty cache too;
 * 0 if nothing reaches n yet. */
static int
join(const struct xray__icsim *s, const struct flow *f, size_t n, unsigned char *must,
     unsigned char *may)
{
  size_t i, l;
  int any = n == 0, first = n != 0;

  memset(must, ABSENT, s->nlines);
  memset(may, ABSENT, s->nlines);
  for (i = f->pred_first[n]; i < f->pred_first[n + 1]; i++) {
    size_t q = f->pred[i];
    if (!f->reached[q])
      continue;
    for (l = 0; l < s->nlines; l++) {
      const unsigned char a = f->must[q * s->nlines + l], b = f->may[q * s->nlines + l];
      must[l] = first || a > must[l] ? a : must[l];
      may[l] = b < may[l] ? b : may[l];
    }
    first = 0;
    any = 1;
  }
  return any;
}

static int
flow_init(const struct xray__icsim *s, struct flow *f)
{
  size_t n, i, k, succ[2];

  f->set_first = calloc(s->sets + 1, sizeof *f->set_first);
  f->set_line = malloc((s->nlines + 1) * sizeof *f->set_line);
  f->pred_first = calloc(s->nnodes + 2, sizeof *f->pred_first);
  f->pred = malloc((2 * s->nnodes + 1) * sizeof *f->pred);
  f->must = malloc(s->nnodes * s->nlines + 1);
  f->may = malloc(s->nnodes * s->nlines + 1);
  f->reached = calloc(s->nnodes + 1, 1);
  if (!f->set_first || !f->set_line || !f->pred_first || !f->pred || !f->must || !f->may
      || !f->reached)
    return -1;
  for (i = 0; i < s->nlines; i++)
    f->set_first[set_of(s, i) + 1]++;
  for (i = 0; i < s->sets; i++)
    f->set_first[i + 1] += f->set_first[i];
  for (i = 0, k = 0; k < s->sets; k++)
    for (n = 0; n < s->nlines; n++)
      if (set_of(s, n) == k)
        f->set_line[i++] = n;
  /* Predecessors, grouped by node (counting, then placing). */
  for (n = 0; n < s->nnodes; n++) {
    int c = xray__icsim_successors(s, n, succ);
    for (i = 0; i < (size_t) c; i++)
      f->pred_first[succ[i] + 2]++;
  }
  for (n = 0; n < s->nnodes; n++)
    f->pred_first[n + 2] += f->pred_first[n + 1];
  for (n = 0; n < s->nnodes; n++) {
    int c = xray__icsim_successors(s, n, succ);
    for (i = 0; i < (size_t) c; i++)
      f->pred[f->pred_first[succ[i] + 1]++] = n;
  }
  return 0;
}

static void
flow_free(struct flow *f)
{
  free(f->set_first);
  free(f->set_line);
  free(f->pred_first);
  free(f->pred);
  free(f->must);
  free(f->may);
  free(f->reached);
}

/* Round-robin iteration to the fixed point (paper Fig. 2). */
static int
solve(struct xray__icsim *s, struct flow *f)
{
  unsigned char *must = malloc(s->nlines + 1), *may = malloc(s->nlines + 1);
  size_t n, r, rounds = 0;
  int changed = 1;

  if (!must || !may) {
    free(must);
    free(may);
    return -1;
  }
  while (changed && rounds++ < 100000) {
    changed = 0;
    for (n = 0; n < s->nnodes; n++) {
      if (!join(s, f, n, must, may))
        continue;
      for (r = s->node_ref[n]; r < s->node_ref[n + 1]; r++) {
        access_line(s, f, must, s->ref[r].line, 0);
        access_line(s, f, may, s->ref[r].line, 1);
      }
      if (!f->reached[n] || memcmp(must, f->must + n * s->nlines, s->nlines)
          || memcmp(may, f->may + n * s->nlines, s->nlines)) {
        memcpy(f->must + n * s->nlines, must, s->nlines);
        memcpy(f->may + n * s->nlines, may, s->nlines);
        f->reached[n] = 1;
        changed = 1;
      }
    }
  }
  free(must);
  free(may);
  return 0;
}

/* --- categories ------------------------------------------------------------ */

/* Lines referenced at the nodes of a bitset (or every node where control
 * can go from a node), as a bitset of lines. */
static void
lines_of_nodes(const struct xray__icsim *s, const uint64_t *nodes, uint64_t *lines)
{
  size_t n, r;

  for (n = 0; n < s->nnodes; n++)
    if (bit(nodes, n))
      for (r = s->node_ref[n]; r < s->node_ref[n + 1]; r++)
        set_bit(lines, s->ref[r].line);
}

/* For each node, the lines referenced where control can go from it (the
 * paper's reaching state), itself included; NULL without memory. */
static uint64_t *
reaching(const struct xray__icsim *s)
{
  size_t w = WORDS(s->nlines), n, r, k, succ[2];
  uint64_t *reach = calloc(s->nnodes * w + 1, sizeof *reach);
  int changed = 1;

  if (!reach)
    return NULL;
  for (n = 0; n < s->nnodes; n++)
    for (r = s->node_ref[n]; r < s->node_ref[n + 1]; r++)
      set_bit(reach + n * w, s->ref[r].line);
  while (changed) {
    changed = 0;
    for (n = s->nnodes; n-- > 0;) {
      int c = xray__icsim_successors(s, n, succ), j;
      for (j = 0; j < c; j++)
        for (k = 0; k < w; k++) {
          uint64_t v = reach[n * w + k] | reach[succ[j] * w + k];
          if (v != reach[n * w + k])
            reach[n * w + k] = v, changed = 1;
        }
    }
  }
  return reach;
}

/* Other lines of x's set among lines, fewer than the ways: x, once
 * loaded, stays while only those are referenced. */
static int
persists(const struct xray__icsim *s, const struct flow *f, size_t x, const uint64_t *lines)
{
  size_t set = set_of(s, x), i, k = 0;

  for (i = f->set_first[set]; i < f->set_first[set + 1]; i++)
    k += f->set_line[i] != x && bit(lines, f->set_line[i]);
  return k < s->ways;
}

static unsigned char
category(const struct xray__icsim *s, const struct flow *f, const unsigned char *must,
         const unsigned char *may, size_t x, const uint64_t *lines)
{
  if (must[x] != ABSENT)
    return XRAY__IC_HIT;
  if (may[x] == ABSENT)
    return XRAY__IC_MISS;
  return persists(s, f, x, lines) ? XRAY__IC_FIRST : XRAY__IC_CONFLICT;
}

static int
categorise(struct xray__icsim *s, struct flow *f)
{
  size_t wl = WORDS(s->nlines), n, r, l;
  uint64_t *reach = reaching(s), *loop_lines = calloc(s->nloops * wl + 1, sizeof *loop_lines);
  unsigned char *must = malloc(s->nlines + 1), *may = malloc(s->nlines + 1);
  int rc = -1;

  if (!reach || !loop_lines || !must || !may)
    goto out;
  for (l = 0; l < s->nloops; l++)
    lines_of_nodes(s, s->loop[l].nodes, loop_lines + l * wl);
  for (n = 0; n < s->nnodes; n++) {
    int reached = join(s, f, n, must, may);
    for (r = s->node_ref[n]; r < s->node_ref[n + 1]; r++) {
      struct xray__icref *ref = &s->ref[r];
      size_t depth = s->node_loop[n] < 0 ? 0 : s->loop[s->node_loop[n]].depth + 1, d = 0;
      int lp;
      /* A node nothing reaches: its references never run. */
      ref->global = reached ? category(s, f, must, may, ref->line, reach + n * wl) : XRAY__IC_HIT;
      if (depth && !(ref->level = malloc(depth)))
        goto out;
      for (lp = s->node_loop[n]; lp >= 0; lp = s->loop[lp].parent)
        ref->level[d++] =
            reached ? category(s, f, must, may, ref->line, loop_lines + lp * wl) : XRAY__IC_HIT;
      access_line(s, f, must, ref->line, 0);
      access_line(s, f, may, ref->line, 1);
    }
  }
  rc = 0;
out:
  free(reach);
  free(loop_lines);
  free(must);
  free(may);
  return rc;
}

/* The states take a byte per block instance and program line, twice:
 * beyond MAX_STATE_BYTES the program is refused, with its size. */
#define MAX_STATE_BYTES (UINT64_C(1) << 30)

static int
too_large(struct xray__icsim *s)
{
  if ((uint64_t) s->nnodes * s->nlines * 2 <= MAX_STATE_BYTES)
    return 0;
  snprintf(s->error, sizeof s->error,
           "too large to analyse: %zu block instances and %zu program lines (its cache states "
           "would take more than 1 GB); name fewer functions",
           s->nnodes, s->nlines);
  return 1;
}

int
xray__icsim_analyse(struct xray__icsim *s, const struct xray__icprog *p, unsigned long size,
                    unsigned long ways, unsigned long line)
{
  struct flow f = { 0 };
  int rc = -1;

  memset(s, 0, sizeof *s);
  s->p = p;
  s->size = size;
  s->ways = ways;
  s->line = line;
  if (!line || !ways || ways >= ABSENT || size % (ways * line) || !size) {
    snprintf(s->error, sizeof s->error,
             "a cache of %lu bytes, %lu ways and %lu-byte lines does not divide into sets (ways "
             "1 to 254)",
             size, ways, line);
    return -1;
  }
  s->sets = size / (ways * line);
  if (p->root >= p->nf) {
    snprintf(s->error, sizeof s->error, "the program has no function %zu to start in", p->root);
    return -1;
  }
  if (make_nodes(s) == 0 && make_refs(s) == 0 && !too_large(s) && xray__icsim_loops(s) == 0
      && flow_init(s, &f) == 0 && solve(s, &f) == 0 && categorise(s, &f) == 0)
    rc = 0;
  else if (!s->error[0])
    snprintf(s->error, sizeof s->error, "out of memory");
  flow_free(&f);
  return rc;
}

void
xray__icsim_free(struct xray__icsim *s)
{
  size_t i;

  for (i = 0; i < s->nrefs; i++)
    free(s->ref[i].level);
  for (i = 0; i < s->nloops; i++)
    free(s->loop[i].nodes);
  free(s->ref);
  free(s->loop);
  free(s->node_ref);
  free(s->node_block);
  free(s->node_inst);
  free(s->node_callee);
  free(s->node_loop);
  free(s->line_addr);
  free(s->inst);
  memset(s, 0, sizeof *s);
}

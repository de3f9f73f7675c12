/* The loops of a program's instances (see icsim.h): natural loops of each
 * function's flow graph, a back edge to a block that dominates its source
 * with every block that reaches the source without passing the header;
 * one loop per header.  A loop of an instance also holds the instances
 * its blocks call, and the loops nest by containment, so that a callee's
 * loop lies in the loop around its call site. */
#include "icsim/private.h"

#include <stdlib.h>
#include <string.h>

/* Dominators of function fn's blocks, by iteration: bitsets of n blocks,
 * w words each, in dom (n * w words), nd (w words) scratch. */
static void
dominators(const struct xray__icprog *p, const struct xray__icfunc *fn, size_t w, uint64_t *dom,
           uint64_t *nd)
{
  size_t n = fn->n, i, j, k;
  int changed = 1;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (i > 0 || j == 0)
        set_bit(dom + i * w, j);
  while (changed) {
    changed = 0;
    for (i = 1; i < n; i++) {
      int any = 0;
      memset(nd, 0xff, w * sizeof *nd);
      for (j = 0; j < n; j++) {
        const struct xray__icblock *b = &p->b[fn->first + j];
        if (b->succ[0] == (int) (fn->first + i) || b->succ[1] == (int) (fn->first + i)) {
          for (k = 0; k < w; k++)
            nd[k] &= dom[j * w + k];
          any = 1;
        }
      }
      if (!any)
        memset(nd, 0, w * sizeof *nd);
      set_bit(nd, i);
      if (memcmp(nd, dom + i * w, w * sizeof *nd) != 0) {
        memcpy(dom + i * w, nd, w * sizeof *nd);
        changed = 1;
      }
    }
  }
}

/* Function f's natural loops, as bitsets of its blocks (local indices)
 * in *loops and their headers in *hdr, one loop per header; how many, or
 * -1 without memory. */
static int
func_loops(const struct xray__icprog *p, size_t f, uint64_t ***loops, size_t **hdr)
{
  const struct xray__icfunc *fn = &p->f[f];
  size_t n = fn->n, w = WORDS(n), i, j, k, nl = 0, top;
  uint64_t *dom = calloc(n * w + w, sizeof *dom), *nd = dom + n * w, **out = NULL;
  size_t *stack = malloc((n + 1) * sizeof *stack), *hd = NULL;

  *loops = NULL;
  *hdr = NULL;
  if (!dom || !stack)
    goto oom;
  dominators(p, fn, w, dom, nd);
  for (i = 0; i < n; i++)
    for (k = 0; k < 2; k++) {
      /* Successors are the program's block numbers: local ones here. */
      int h = p->b[fn->first + i].succ[k] < 0 ? -1 : p->b[fn->first + i].succ[k] - (int) fn->first;
      if (h < 0 || !bit(dom + i * w, (size_t) h))
        continue;
      /* A back edge i -> h: the loop holds h and what reaches i without
       * passing h. */
      for (j = 0; j < nl && hd[j] != (size_t) h; j++)
        ;
      if (j == nl) {
        uint64_t **o2 = realloc(out, (nl + 1) * sizeof *out);
        size_t *h2 = realloc(hd, (nl + 1) * sizeof *hd);
        if (o2)
          out = o2;
        if (h2)
          hd = h2;
        if (!o2 || !h2 || !(out[nl] = calloc(w, sizeof **out)))
          goto oom;
        hd[nl] = (size_t) h;
        set_bit(out[nl++], (size_t) h);
      }
      top = 0;
      if (!bit(out[j], i))
        set_bit(out[j], i), stack[top++] = i;
      while (top) {
        size_t v = stack[--top], u;
        for (u = 0; u < n; u++) {
          const struct xray__icblock *b = &p->b[fn->first + u];
          if ((b->succ[0] == (int) (fn->first + v) || b->succ[1] == (int) (fn->first + v))
              && !bit(out[j], u))
            set_bit(out[j], u), stack[top++] = u;
        }
      }
    }
  free(dom);
  free(stack);
  *loops = out;
  *hdr = hd;
  return (int) nl;
oom:
  for (j = 0; j < nl; j++)
    free(out[j]);
  free(out);
  free(hd);
  free(dom);
  free(stack);
  return -1;
}

static size_t
popcount(const uint64_t *b, size_t w)
{
  size_t i, c = 0;

  for (i = 0; i < w; i++)
    c += (size_t) __builtin_popcountll(b[i]);
  return c;
}

static int
subset(const uint64_t *a, const uint64_t *b, size_t w)
{
  size_t i;

  for (i = 0; i < w; i++)
    if (a[i] & ~b[i])
      return 0;
  return 1;
}

/* One instance loop from function loop body (local bitset) of instance
 * in, with the instances its blocks call; -1 without memory. */
static int
add_loop(struct xray__icsim *s, size_t in, const uint64_t *body, size_t header)
{
  size_t w = WORDS(s->nnodes), fn = s->p->f[s->inst[in].func].n, i, d;
  struct xray__icloop *l;
  char *inside = calloc(s->ninst, 1);

  if (!inside || !(l = realloc(s->loop, (s->nloops + 1) * sizeof *s->loop))) {
    free(inside);
    return -1;
  }
  s->loop = l;
  l = &s->loop[s->nloops];
  if (!(l->nodes = calloc(w, sizeof *l->nodes))) {
    free(inside);
    return -1;
  }
  s->nloops++;
  l->header = s->inst[in].base + header;
  l->parent = -1;
  l->depth = 0;
  for (i = 0; i < fn; i++)
    if (bit(body, i))
      set_bit(l->nodes, s->inst[in].base + i);
  /* Instances come in depth-first order: a parent before its children. */
  for (d = in + 1; d < s->ninst; d++) {
    int par = s->inst[d].parent;
    if (par < 0 || !((size_t) par == in ? bit(l->nodes, s->inst[d].site) : inside[par]))
      continue;
    inside[d] = 1;
    for (i = 0; i < s->p->f[s->inst[d].func].n; i++)
      set_bit(l->nodes, s->inst[d].base + i);
  }
  free(inside);
  return 0;
}

int
xray__icsim_loops(struct xray__icsim *s)
{
  size_t w = WORDS(s->nnodes), i, j, n;

  for (i = 0; i < s->ninst; i++) {
    uint64_t **body;
    size_t *hdr;
    int nl = func_loops(s->p, s->inst[i].func, &body, &hdr), k, bad = 0;
    if (nl < 0)
      return -1;
    for (k = 0; k < nl; k++) {
      bad = bad || add_loop(s, i, body[k], hdr[k]);
      free(body[k]);
    }
    free(body);
    free(hdr);
    if (bad)
      return -1;
  }
  /* Nesting: the smallest other loop holding all of one is its parent. */
  for (i = 0; i < s->nloops; i++) {
    size_t best = 0;
    for (j = 0; j < s->nloops; j++) {
      size_t c = popcount(s->loop[j].nodes, w);
      if (j != i && subset(s->loop[i].nodes, s->loop[j].nodes, w)
          && c > popcount(s->loop[i].nodes, w) && (s->loop[i].parent < 0 || c < best)) {
        s->loop[i].parent = (int) j;
        best = c;
      }
    }
  }
  for (i = 0; i < s->nloops; i++)
    for (j = i; s->loop[j].parent >= 0; j = (size_t) s->loop[j].parent)
      s->loop[i].depth++;
  if (!(s->node_loop = malloc(s->nnodes * sizeof *s->node_loop)))
    return -1;
  for (n = 0; n < s->nnodes; n++) {
    size_t best = 0;
    s->node_loop[n] = -1;
    for (i = 0; i < s->nloops; i++)
      if (bit(s->loop[i].nodes, n)
          && (s->node_loop[n] < 0 || popcount(s->loop[i].nodes, w) < best)) {
        s->node_loop[n] = (int) i;
        best = popcount(s->loop[i].nodes, w);
      }
  }
  return 0;
}

/* Control-engine helpers: geometric scans, plateau and step detection,
 * edge refinement.
 *
 * X-Ray's engine (mu + 2 sigma of one plateau, doubling, binary search) gave
 * the right L1I in only 1-3 of 5 runs on a shared VM: sigma of a min-of-many
 * estimate is tiny, so every small wobble crosses the threshold, and a
 * binary search trusts each single point.  Instead:
 *
 *  - scan geometrically (8 points per octave), smooth with a median of three
 *    (an isolated spike cannot move it, and unlike the paper's sliding
 *    minimum it does not shift an edge);
 *  - declare a step only when three consecutive points stand above the
 *    current plateau by a relative jump, and take the levels on both sides
 *    from the measured plateaus;
 *  - refine between the last low and first high point.  Under LRU a cyclic
 *    sweep of s bytes through a cache of capacity C and associativity A
 *    misses on a fraction phi = (A+1)(s-C)/s of its accesses for
 *    C < s < C(A+1)/A, so phi*s is linear in s and its zero is C exactly.
 *    A least-squares fit over the transition therefore finds the onset; a
 *    midpoint threshold would land at C(1 + 1/2A), 17 % high for 3 ways.
 *    Where the edge is sharp, or the fit does not explain the points (real
 *    caches are not LRU), the bracket around the point where the curve
 *    crosses 75 % of the jump is narrowed to the granularity instead;
 *  - confirm: a value is reported once two independent determinations
 *    agree (xray__consensus). */
#include "measure/measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
xray__curve_add(struct xray__curve *c, double x, double y)
{
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 64;
    double *nx = realloc(c->x, cap * sizeof *nx), *ny;
    if (!nx)
      return -1;
    c->x = nx;
    if (!(ny = realloc(c->y, cap * sizeof *ny)))
      return -1;
    c->y = ny;
    c->cap = cap;
  }
  c->x[c->n] = x;
  c->y[c->n] = y;
  c->n++;
  return 0;
}

void
xray__curve_free(struct xray__curve *c)
{
  free(c->x);
  free(c->y);
  memset(c, 0, sizeof *c);
}

static double
med3(double a, double b, double c)
{
  if (a > b) {
    double t = a;
    a = b;
    b = t;
  }
  return c < a ? a : c > b ? b : c;
}

void
xray__smooth(const double *y, double *out, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    out[i] = (i == 0 || i + 1 == n) ? y[i] : med3(y[i - 1], y[i], y[i + 1]);
  /* The ends have one neighbour: keep them only if not above both. */
  if (n >= 3) {
    if (out[0] > out[1] && out[0] > out[2])
      out[0] = out[1];
    if (out[n - 1] > out[n - 2] * 1.5)
      out[n - 1] = out[n - 2];
  }
}

/* The paper's smoothing (Yotov et al., LCPC 2005, Sec. 3.2): the minimum
 * over the neighbourhood [i - w/2, i + w/2].  It removes isolated spikes
 * like the median of three, but moves an upward edge w/2 points later;
 * the engine uses the median, this is kept for control engines that want
 * the paper's behaviour. */
void
xray__smooth_min(const double *y, double *out, size_t n, size_t w)
{
  size_t i, j, lo, hi;

  for (i = 0; i < n; i++) {
    lo = i >= w / 2 ? i - w / 2 : 0;
    hi = i + w / 2 < n ? i + w / 2 : n - 1;
    out[i] = y[lo];
    for (j = lo + 1; j <= hi; j++)
      if (y[j] < out[i])
        out[i] = y[j];
  }
}

void
xray__keep_fastest(double best[2], double t)
{
  if (t < best[0]) {
    best[1] = best[0];
    best[0] = t;
  } else if (t < best[1])
    best[1] = t;
}

void
xray__sort(double *v, size_t n)
{
  size_t i, j;

  for (i = 1; i < n; i++)
    for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
      double s = v[j];
      v[j] = v[j - 1];
      v[j - 1] = s;
    }
}

double
xray__median(const double *v, size_t n)
{
  double *t, r;
  size_t i, k = 0;

  if (n == 0 || !(t = malloc(n * sizeof *t)))
    return NAN;
  for (i = 0; i < n; i++)
    if (!isnan(v[i]))
      t[k++] = v[i];
  if ((n = k) == 0) {
    free(t);
    return NAN;
  }
  xray__sort(t, n);
  r = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  free(t);
  return r;
}

int
xray__scan(struct xray__curve *c, double lo, double hi, int per_octave,
           double (*f)(void *ctx, double x), void *ctx)
{
  double r = pow(2.0, 1.0 / per_octave), x;
  int i;

  for (i = 0; (x = lo * pow(r, i)) <= hi * 1.000001; i++)
    if (xray__curve_add(c, x, f(ctx, x)))
      return -1;
  return 0;
}

#define STEP_HOLD 6
size_t
xray__find_steps(const struct xray__curve *c, double min_jump,
                 struct xray__step *out, size_t max)
{
  double *m, level;
  size_t n = c->n, i, j, k, nsteps = 0, start = 0;

  if (n < 4 || !(m = malloc(n * sizeof *m)))
    return 0;
  xray__smooth(c->y, m, n);
  i = 1;
  while (i + 2 < n && nsteps < max) {
    /* The plateau level is the median of its points so far. */
    level = xray__median(m + start, i - start);
    if (!(m[i] > level * (1 + min_jump) && m[i + 1] > level * (1 + min_jump)
          && m[i + 2] > level * (1 + min_jump))) {
      i++;
      continue;
    }
    /* Rise until the curve stops climbing: the next plateau begins where
     * three points agree within half the jump. */
    for (j = i; j + 2 < n; j++)
      if (fabs(m[j + 1] - m[j]) < m[j] * min_jump / 2
          && fabs(m[j + 2] - m[j]) < m[j] * min_jump / 2)
        break;
    if (j + 2 >= n)
      j = n - 1;
    /* A step holds: the curves measured here never fall as they grow, so
     * a rise whose next points mostly fall back to the low plateau was a
     * disturbance that outlasted the smoothing (three points of a TLB scan
     * here read 15, 15 and 17 cycles between 12s, and took the place of
     * the real second step four times further on).  Mostly: the median of
     * up to STEP_HOLD of them, since single points of a noisy high
     * plateau dip as far. */
    k = j + 1 + STEP_HOLD < n ? j + 1 + STEP_HOLD : n;
    if (k >= j + 4 && xray__median(m + j + 1, k - j - 1) <= level * (1 + min_jump / 2)) {
      i = j + 1;
      continue;
    }
    k = j + 3 < n ? j + 3 : n;
    out[nsteps].last_low = i - 1;
    out[nsteps].first_high = j;
    out[nsteps].lo = level;
    out[nsteps].hi = xray__median(m + j, k - j);
    /* The onset is the last point still within the low plateau. */
    while (out[nsteps].last_low > start
           && m[out[nsteps].last_low] > level * (1 + min_jump / 2))
      out[nsteps].last_low--;
    nsteps++;
    start = j;
    i = j + 1;
  }
  free(m);
  return nsteps;
}

/* Every start c on a quarter-spacing grid and every end at a point (or
 * past the last one); a and b by least squares for each, the pair with
 * the smallest squared error kept. */
double
xray__fit_ramp(const double *x, const double *y, size_t n, double *slope, double *rise,
               double *rms)
{
  double best = INFINITY, bc = NAN, brise = 0, bb = 0;
  size_t i, j, k;
  int q;

  if (n < 5)
    return NAN;
  for (i = 0; i + 1 < n; i++)
    for (q = 0; q < 4; q++) {
      double c = x[i] + q * (x[i + 1] - x[i]) / 4;
      for (j = i + 1; j <= n; j++) {
        double w = j < n ? x[j] - c : INFINITY, su = 0, sy = 0, suu = 0, suy = 0, b, a, e = 0;
        double var;
        for (k = 0; k < n; k++) {
          double u = fmin(fmax(x[k] - c, 0), w);
          su += u, sy += y[k], suu += u * u, suy += u * y[k];
        }
        var = suu - su * su / n;
        if (!(var > 0))
          continue;
        b = (suy - su * sy / n) / var;
        a = (sy - b * su) / n;
        if (b <= 0)
          continue;
        for (k = 0; k < n; k++) {
          double r = y[k] - a - b * fmin(fmax(x[k] - c, 0), w);
          e += r * r;
        }
        if (e < best) {
          best = e, bc = c, bb = b;
          brise = b * fmin(w, x[n - 1] - c);
        }
      }
    }
  if (slope)
    *slope = bb;
  if (rise)
    *rise = brise;
  if (rms)
    *rms = isnan(bc) ? NAN : sqrt(best / n);
  return bc;
}

/* Crossing level for a sharp edge, as a fraction of the jump. */
#define XRAY__EDGE_PHI 0.75

static double
snap(double x, double g)
{
  return floor(x / g + 0.5) * g;
}

/* Least-squares fit of phi*x = slope*(x - c) over the transition points;
 * accepted only if the model explains every point within 0.12 in phi (an
 * LRU-like edge).  Returns c, or NAN. */
static double
fit_lru(const double *xs, const double *phi, int n)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0, slope, icpt, c;
  int k, nt = 0;

  for (k = 0; k < n; k++)
    if (phi[k] >= 0.1 && phi[k] <= 0.9) {
      sx += xs[k];
      sy += phi[k] * xs[k];
      sxx += xs[k] * xs[k];
      sxy += xs[k] * phi[k] * xs[k];
      nt++;
    }
  if (nt < 4 || nt * sxx - sx * sx <= 0)
    return NAN;
  slope = (nt * sxy - sx * sy) / (nt * sxx - sx * sx);
  icpt = (sy - slope * sx) / nt;
  if (slope < 1.5)
    return NAN;
  c = -icpt / slope;
  /* Every point, saturated ones included: a noisy plateau below the edge
   * can pass for the start of a transition, but not for one that also
   * ends where the curve saturates.  A point faster than the low level (an
   * op-cache plateau below the decoders) counts as low. */
  for (k = 0; k < n; k++) {
    double pred = xs[k] <= c ? 0 : fmin(1, slope * (xs[k] - c) / xs[k]);
    if (fabs(pred - fmin(1, fmax(phi[k], 0))) > 0.12)
      return NAN;
  }
  return c;
}

double
xray__refine_edge(double a, double b, double lo, double hi, double g,
                  double (*f)(void *ctx, double x), void *ctx, int *gradual)
{
  enum { K = 12, ROUNDS = 6, MAXP = K * ROUNDS };
  double xs[MAXP], ys[MAXP], sm[MAXP], phi[MAXP], c;
  int round, k, j, n = 0, first_high;

  *gradual = 0;
  for (round = 0; round < ROUNDS; round++) {
    /* Add K points over [a, b], keeping every point so far sorted: the
     * fit and the smoothing see all of them. */
    for (k = 0; k < K; k++) {
      double x = snap(a + (b - a) * k / (K - 1), g);
      for (j = 0; j < n && xs[j] < x; j++)
        ;
      if (j < n && xs[j] == x)
        continue;
      memmove(xs + j + 1, xs + j, (size_t) (n - j) * sizeof *xs);
      memmove(ys + j + 1, ys + j, (size_t) (n - j) * sizeof *ys);
      xs[j] = x;
      ys[j] = f(ctx, x);
      n++;
    }
    xray__smooth(ys, sm, (size_t) n);
    first_high = -1;
    for (k = 0; k < n; k++) {
      phi[k] = (sm[k] - lo) / (hi - lo);
      if (phi[k] >= XRAY__EDGE_PHI && first_high < 0)
        first_high = k;
    }
    /* The onset may lie before the points (a coarse point already in the
     * transition passes for low), but not by more than their span. */
    if (first_high > 0 && !isnan(c = fit_lru(xs, phi, n))
        && c >= xs[0] - (xs[n - 1] - xs[0])) {
      *gradual = 1;
      return c;
    }
    if (first_high == 0) {       /* all high: the edge lies before them */
      b = xs[0];
      a = xs[0] - 2 * (xs[n - 1] - xs[0]);
      if (a < g)
        a = g;
    } else if (first_high < 0) { /* all low: the edge lies after them */
      a = xs[n - 1];
      b = xs[n - 1] + 2 * (xs[n - 1] - xs[0]);
    } else {
      a = xs[first_high - 1];
      b = xs[first_high];
      if (b - a <= g)
        return a;
    }
    if (n + K > MAXP)
      break;
  }
  return a;
}

int
xray__consensus(const double *v, size_t n, size_t k, double tol, double *out)
{
  size_t i, j, l, agree, same, best_same = 0;
  int found = 0;

  for (i = 0; i < n; i++) {
    if (isnan(v[i]))
      continue;
    for (j = 0, agree = 0; j < n; j++)
      if (!isnan(v[j]) && fabs(v[i] - v[j]) <= tol * fmax(v[i], v[j]))
        agree++;
    if (agree < k)
      continue;
    /* Of the values that enough others agree with, the most frequent
     * (edges come in discrete steps), the larger on a tie. */
    for (l = 0, same = 0; l < n; l++)
      same += v[l] == v[i];
    if (!found || same > best_same || (same == best_same && v[i] > *out)) {
      *out = v[i];
      best_same = same;
      found = 1;
    }
  }
  return found;
}

double
xray__fit_line(const double *x, const double *y, size_t n, double *a, double *r2, double *rms)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, d, v, b, c, ss = 0, m = (double) n;
  size_t i;

  for (i = 0; i < n; i++) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
    syy += y[i] * y[i];
  }
  d = m * sxx - sx * sx;
  v = m * syy - sy * sy;
  b = (m * sxy - sx * sy) / d;
  c = (sy - b * sx) / m;
  for (i = 0; i < n; i++)
    ss += (y[i] - c - b * x[i]) * (y[i] - c - b * x[i]);
  if (a)
    *a = c;
  if (r2)
    *r2 = v > 0 ? (m * sxy - sx * sy) * (m * sxy - sx * sy) / (d * v) : 0;
  if (rms)
    *rms = sqrt(ss / m);
  return b;
}

/* Minimal TAP producer for the C tests: every check prints both values. */
#ifndef XRAY__TAP_H
#define XRAY__TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

/* Not every test uses every helper. */
#if defined(__GNUC__)
#define TAP_UNUSED __attribute__((unused))
#else
#define TAP_UNUSED
#endif

static void
tap_plan(int n)
{
  printf("1..%d\n", n);
}

static int
tap_ok(int cond, const char *fmt, ...)
{
  va_list ap;

  printf("%s %d - ", cond ? "ok" : "not ok", ++tap_count);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  if (!cond)
    tap_failed++;
  fflush(stdout);
  return cond;
}

/* A diagnostic line: TAP consumers show it and count nothing. */
TAP_UNUSED static void
tap_diag(const char *fmt, ...)
{
  va_list ap;

  printf("# ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

/* |got - want| <= tol * |want| */
TAP_UNUSED static int
tap_near(double got, double want, double tol, const char *what)
{
  return tap_ok(fabs(got - want) <= tol * fabs(want), "%s: got %g, want %g within %g%%", what,
                got, want, tol * 100);
}

TAP_UNUSED static int
tap_done(void)
{
  return tap_failed ? 1 : 0;
}

#endif

/* xray --given=FILE: values taken as given, from xray's own shell output
 * (--format=shell) of an earlier run.  A line NAME=NUMBER gives NAME; a
 * comment "# NAME unconfirmed..." (before or after it) gives it
 * unconfirmed, so that what rests on it is not confirmed either.  Other
 * comments, blank lines, text values (NAME="...") and the values of the
 * other kinds of core (NAME_KIND<n>) are skipped: they are part of such
 * output, and no probe rests on them.  Anything else is an error that
 * names the file, the line and what the line should be. */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int
xray_cli_decimal(const char *s, double *v)
{
  char *end;

  errno = 0;
  *v = strtod(s, &end);
  /* Decimal only: strtod also reads hexadecimal, "inf" and "nan". */
  return errno || end == s || *end || strspn(s, "0123456789.eE+-") != strlen(s) || !isfinite(*v)
      ? -1
      : 0;
}

/* The length of the value name at s (XRAY_ and [A-Z0-9_]), or 0. */
static size_t
name_len(const char *s)
{
  size_t n;

  if (strncmp(s, "XRAY_", 5) != 0)
    return 0;
  for (n = 5; isupper((unsigned char) s[n]) || isdigit((unsigned char) s[n]) || s[n] == '_'; n++)
    ;
  return n;
}

/* name is another kind of core's value: it ends _KIND and digits. */
static int
other_kind(const char *name)
{
  const char *k = strstr(name, "_KIND");

  return k && k[5] && strspn(k + 5, "0123456789") == strlen(k + 5);
}

static struct xray_cli_given *
entry(struct xray_cli_given **g, size_t *n, size_t *cap, const char *name, size_t len,
      long line)
{
  size_t i;

  for (i = 0; i < *n; i++)
    if (strlen((*g)[i].name) == len && strncmp((*g)[i].name, name, len) == 0)
      return &(*g)[i];
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 64;
    struct xray_cli_given *t = realloc(*g, c * sizeof *t);
    if (!t)
      return NULL;
    *g = t;
    *cap = c;
  }
  memset(&(*g)[*n], 0, sizeof **g);
  memcpy((*g)[*n].name, name, len);
  (*g)[*n].value = NAN;
  (*g)[*n].line = line;
  return &(*g)[(*n)++];
}

/* One line of the file (its newline gone) into the list; 0, or -1 with
 * what the line should be in err. */
static int
take_line(char *s, long line, struct xray_cli_given **g, size_t *n, size_t *cap, char *err,
          size_t len)
{
  struct xray_cli_given *e;
  size_t k, n2;
  double v;

  while (*s == ' ' || *s == '\t')
    s++;
  if (!*s)
    return 0;
  if (*s == '#') {
    for (s++; *s == ' '; s++)
      ;
    k = name_len(s);
    if (k && k < sizeof e->name && strncmp(s + k, " unconfirmed", 12) == 0) {
      if (!(e = entry(g, n, cap, s, k, line)))
        goto oom;
      e->unconfirmed = 1;
    }
    return 0;
  }
  k = name_len(s);
  if (!k || s[k] != '=') {
    snprintf(err, len, "expected NAME=VALUE, as xray --format=shell writes it");
    return -1;
  }
  if (k >= sizeof e->name) {
    snprintf(err, len, "the name %.*s... is longer than any value of xray's", 40, s);
    return -1;
  }
  if (s[k + 1] == '"' || s[k + 1] == '\'')
    return 0; /* a text value */
  s[k] = 0;
  if (other_kind(s))
    return 0;
  for (n2 = strlen(s + k + 1); n2 > 0 && strchr(" \t\r", s[k + n2]); n2--)
    s[k + n2] = 0;
  if (xray_cli_decimal(s + k + 1, &v)) {
    snprintf(err, len, "%s: expected a decimal number, not '%.40s'", s, s + k + 1);
    return -1;
  }
  if (!(e = entry(g, n, cap, s, k, line)))
    goto oom;
  if (!isnan(e->value)) {
    snprintf(err, len, "%s is given twice (first on line %ld)", s, e->line);
    return -1;
  }
  e->value = v;
  e->line = line;
  return 0;
oom:
  snprintf(err, len, "out of memory");
  return -1;
}

/* Lines longer than this are comments (a value's reason), whose rest is
 * skipped; a longer line of any other kind is an error. */
#define LINE_MAX_GIVEN 4096

int
xray_cli_given_read(const char *path, struct xray_cli_given **out, size_t *nout, char *err,
                    size_t len)
{
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
  struct xray_cli_given *g = NULL;
  size_t n = 0, cap = 0, i, k = 0, got;
  char buf[LINE_MAX_GIVEN], why[200];
  long line = 0;
  int rc = 0, rest = 0;

  *out = NULL;
  *nout = 0;
  if (!f) {
    snprintf(err, len, "--given: cannot read '%s': %s", path, strerror(errno));
    return -1;
  }
  while (!rc && fgets(buf, sizeof buf, f)) {
    got = strlen(buf);
    if (rest) { /* the rest of a long comment */
      rest = got > 0 && buf[got - 1] != '\n';
      continue;
    }
    line++;
    if (got > 0 && buf[got - 1] == '\n')
      buf[--got] = 0;
    else if (!feof(f)) {
      rest = 1;
      if (buf[strspn(buf, " \t")] == '#')
        continue;
      snprintf(why, sizeof why, "longer than %d bytes", LINE_MAX_GIVEN - 2);
      rc = -1;
    }
    if (rc || take_line(buf, line, &g, &n, &cap, why, sizeof why)) {
      snprintf(err, len, "--given: %s line %ld: %s", path, line, why);
      rc = -1;
    }
  }
  if (!rc && ferror(f)) {
    snprintf(err, len, "--given: cannot read '%s': %s", path, strerror(errno));
    rc = -1;
  }
  if (f != stdin)
    fclose(f);
  /* A name only a comment called unconfirmed gives nothing. */
  for (i = 0; !rc && i < n; i++)
    if (!isnan(g[i].value))
      g[k++] = g[i];
  if (!rc && k == 0) {
    snprintf(err, len,
             "--given: '%s' gives no value (expected NAME=VALUE lines, as xray "
             "--format=shell writes them)",
             path);
    rc = -1;
  }
  if (rc) {
    free(g);
    return -1;
  }
  *out = g;
  *nout = k;
  return 0;
}

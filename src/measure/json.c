/* JSON strings, for every report xray writes (run/report.c's values,
 * icsim/report.c's loops): whatever bytes a name, a reason or an ELF
 * symbol holds, the output stays valid JSON. */
#include "measure/measure.h"

/* Length of the well-formed UTF-8 character at s (1 to 4), or 0: an
 * overlong form, a surrogate, a code point past U+10FFFF, or a sequence cut
 * short (a buffer filled mid-character). */
static int
utf8_len(const unsigned char *s)
{
  int n, i;
  unsigned long cp;

  if (s[0] < 0x80)
    return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    n = 2, cp = s[0] & 0x1f;
  else if (s[0] >= 0xe0 && s[0] <= 0xef)
    n = 3, cp = s[0] & 0x0f;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4)
    n = 4, cp = s[0] & 0x07;
  else
    return 0;
  for (i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))
      || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

/* s as a JSON string: quotes, backslashes and control characters escaped,
 * whole UTF-8 characters only (a byte that is not part of one becomes
 * U+FFFD). */
void
xray__json_string(FILE *f, const char *s)
{
  const unsigned char *p = (const unsigned char *) s;
  int n;

  fputc('"', f);
  while (*p) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p++);
    else if (*p < 0x20 || *p == 0x7f)
      fprintf(f, "\\u%04x", *p++);
    else if ((n = utf8_len(p)) == 0)
      fputs("\\ufffd", f), p++;
    else
      fwrite(p, 1, (size_t) n, f), p += n;
  }
  fputc('"', f);
}

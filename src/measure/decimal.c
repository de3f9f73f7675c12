/* Numbers given by users (options, --simulate specs, recordings). */
#include "measure/measure.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

/* A decimal number at s: [+-]digits[.digits][e[+-]digits], as strtod
 * reads it, and nothing strtod reads beyond that (hexadecimal, "inf",
 * "nan", leading blanks), since no document promises those.  *end is set
 * past the number, or to s if there is none or it is not finite. */
double
xray__decimal(const char *s, char **end)
{
  const char *p = s;
  int digits = 0;
  double v;

  *end = (char *) s;
  if (*p == '+' || *p == '-')
    p++;
  for (; isdigit((unsigned char) *p); p++)
    digits++;
  if (*p == '.')
    for (p++; isdigit((unsigned char) *p); p++)
      digits++;
  if (!digits)
    return 0;
  if ((*p == 'e' || *p == 'E')
      && (isdigit((unsigned char) p[1])
          || ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char) p[2]))))
    for (p += 2; isdigit((unsigned char) *p); p++)
      ;
  v = strtod(s, end);
  if (*end != p || !isfinite(v)) {
    *end = (char *) s;
    return 0;
  }
  return v;
}

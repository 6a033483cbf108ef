/*
 * settings.c -- the MPIR_CVAR_RANKMAP_* settings of the MPI layer: read once
 * at MPI_Init through the path's getter (the plugin: the environment; the
 * patched MPICH: its CVARs), parsed and range-checked here with the table
 * generated from src/mpilayer/settings.cvars, so both paths accept the same
 * values and name a bad one the same way.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "mpilayer/layer.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

typedef struct setting_def {
    const char *name;
    int type;
    const char *def;
    double lo, hi;
    const char *values; /* an enum's values, comma-separated */
} setting_def;

#define RML_SETTING(NAME, TYPE, DEF, LO, HI, VALUES) { #NAME, TYPE, DEF, LO, HI, VALUES },
static const setting_def defs[RML_S_COUNT] = {
#include "mpilayer/settings_table.h"
};
#undef RML_SETTING

typedef struct setting_value {
    long i;
    double d;
    const char *s;
} setting_value;

static setting_value values[RML_S_COUNT];
static char enum_names[RML_S_COUNT][32];

long rml_int(int id)
{
    return values[id].i;
}

double rml_double(int id)
{
    return values[id].d;
}

const char *rml_str(int id)
{
    return values[id].s ? values[id].s : "";
}

void rml_say(const char *fmt, ...)
{
    char line[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s%s\n", rml.ops && rml.ops->prefix ? rml.ops->prefix : "rankmap: ", line);
    fflush(stderr);
}

void rml_stderr_drain(void)
{
    for (int i = 0; i < 500; i++) {
        int pending = 0;
        if (ioctl(STDERR_FILENO, FIONREAD, &pending) != 0 || pending <= 0)
            return;
        usleep(10000);
    }
}

/* VALUE of the comma-separated LIST at INDEX *index: 1 when found. */
static int enum_index(const char *list, const char *value, long *index)
{
    long k = 0;
    size_t n = strlen(value);
    for (const char *p = list; *p; k++) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t) (e - p) : strlen(p);
        if (len == n && !strncasecmp(p, value, n)) {
            *index = k;
            return 1;
        }
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

static int parse_one(int id, const char *v, char *err, size_t errlen)
{
    const setting_def *d = &defs[id];
    setting_value *out = &values[id];
    char *end;
    switch (d->type) {
    case RML_T_BOOL: {
        static const char *yes[] = { "1", "yes", "true", "on" }, *no[] = { "0", "no", "false", "off" };
        for (int i = 0; i < 4; i++) {
            if (!strcasecmp(v, yes[i])) {
                out->i = 1;
                return 0;
            }
            if (!strcasecmp(v, no[i])) {
                out->i = 0;
                return 0;
            }
        }
        snprintf(err, errlen, "MPIR_CVAR_RANKMAP_%s=\"%s\": expected 0/1, yes/no, true/false",
                 d->name, v);
        return -1;
    }
    case RML_T_INT: {
        errno = 0;
        long x = strtol(v, &end, 10);
        if (end == v || *end != '\0' || errno || x < d->lo || x > d->hi) {
            snprintf(err, errlen, "MPIR_CVAR_RANKMAP_%s=\"%s\": expected an integer in %.0f..%.0f",
                     d->name, v, d->lo, d->hi);
            return -1;
        }
        out->i = x;
        return 0;
    }
    case RML_T_DOUBLE: {
        double x = strtod(v, &end);
        if (end == v || *end != '\0' || !(x >= d->lo) || x > d->hi) {
            snprintf(err, errlen, "MPIR_CVAR_RANKMAP_%s=\"%s\": expected a number in %g..%g",
                     d->name, v, d->lo, d->hi);
            return -1;
        }
        out->d = x;
        return 0;
    }
    case RML_T_ENUM:
        if (!enum_index(d->values, v, &out->i)) {
            snprintf(err, errlen, "MPIR_CVAR_RANKMAP_%s=\"%s\": expected one of %s", d->name, v,
                     d->values);
            return -1;
        }
        /* the canonical (lower-case) name */
        snprintf(enum_names[id], sizeof(enum_names[id]), "%s", v);
        for (char *p = enum_names[id]; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char) (*p - 'A' + 'a');
        out->s = enum_names[id];
        return 0;
    default:
        out->s = v;
        return 0;
    }
}

int rml_settings_read(char *err, size_t errlen)
{
    int bad = 0;
    char why[512];
    for (int id = 0; id < RML_S_COUNT; id++) {
        /* the defaults first: a bad value below leaves the default in place */
        if (parse_one(id, defs[id].def, why, sizeof(why)) != 0) {
            snprintf(err, errlen, "internal: default of %s", why);
            return -1;
        }
    }
    for (int id = 0; id < RML_S_COUNT; id++) {
        const char *v = rml.ops->setting(defs[id].name);
        if (!v || !*v)
            continue;
        if (parse_one(id, v, why, sizeof(why)) != 0) {
            parse_one(id, defs[id].def, err, errlen); /* the default stays */
            if (!bad)
                snprintf(err, errlen, "%s", why);
            bad = 1;
        }
    }
    return bad ? -1 : 0;
}

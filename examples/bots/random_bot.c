/* A bot that plays a uniformly random legal action, for any game (same idea as random_bot.py).
 *
 * The bot wire (examples/README.md): one JSON object per line on stdin (game-start, event,
 * action-request, accepted, refused, game-over, and any type added later); the bot answers each
 * action-request with one line on stdout, flushed:
 *   {"type":"action","table":T,"request":N,"action":<one entry of legal>}
 * A range entry {"type":"raise","min":m,"max":M} is sent as {"type":"raise","amount":m}.
 *
 * C99, standard library only. The JSON reading is the least this needs: it walks the top-level
 * keys of each message and copies the values it wants as raw JSON text.
 * Build: cc -std=c99 -O2 -o random_bot examples/bots/random_bot.c    Run: ./random_bot [SEED]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const char *start, *end; } Span;   /* raw JSON text [start, end) */

static unsigned long long rng_state = 88172645463325252ULL;
static unsigned long long next_random(void) {        /* xorshift64: seeded, no global rand() */
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}

static const char *ws(const char *p) { while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++; return p; }

static const char *skip_string(const char *p) {      /* p at the opening quote; returns past the closing one */
    for (p++; *p && *p != '"'; p++) if (*p == '\\' && p[1]) p++;
    return *p ? p + 1 : p;
}

static const char *skip_value(const char *p) {       /* p at a value; returns just past it (NULL if malformed) */
    p = ws(p);
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        do {
            if (*p == '"') { p = skip_string(p); continue; }
            if (*p == '{' || *p == '[') depth++;
            else if (*p == '}' || *p == ']') depth--;
            else if (!*p) return NULL;
            p++;
        } while (depth > 0);
        return p;
    }
    while (*p && !strchr(",}] \t\r\n", *p)) p++;       /* number, true, false, null */
    return p;
}

/* Calls back for each key/value of the object at p (key span includes the quotes). Returns 0 if malformed. */
typedef void (*Visit)(Span key, Span value, void *ctx);
static int each_member(const char *p, Visit visit, void *ctx) {
    p = ws(p);
    if (*p++ != '{') return 0;
    for (p = ws(p); *p != '}'; p = ws(p)) {
        Span key, value;
        if (*p != '"') return 0;
        key.start = p; key.end = p = skip_string(p);
        p = ws(p);
        if (*p++ != ':') return 0;
        value.start = ws(p);
        if (!(value.end = p = skip_value(p))) return 0;
        visit(key, value, ctx);
        p = ws(p);
        if (*p == ',') p++;
        else if (*p != '}') return 0;
    }
    return 1;
}

static int is(Span s, const char *text) { size_t n = strlen(text); return (size_t)(s.end - s.start) == n && !memcmp(s.start, text, n); }

typedef struct { Span type, table, request, legal; } Message;
static void read_top(Span key, Span value, void *ctx) {
    Message *m = ctx;
    if (is(key, "\"type\"")) m->type = value;
    else if (is(key, "\"table\"")) m->table = value;
    else if (is(key, "\"request\"")) m->request = value;
    else if (is(key, "\"legal\"")) m->legal = value;
}

typedef struct { Span min; int range, first; } Entry;
static void find_range(Span key, Span value, void *ctx) {
    Entry *e = ctx;
    if (is(key, "\"min\"")) { e->min = value; e->range |= 1; }
    if (is(key, "\"max\"")) e->range |= 2;
}
static void copy_member(Span key, Span value, void *ctx) {   /* prints the entry's members but min and max */
    Entry *e = ctx;
    if (is(key, "\"min\"") || is(key, "\"max\"")) return;
    printf("%s%.*s:%.*s", e->first ? "" : ",", (int)(key.end - key.start), key.start, (int)(value.end - value.start), value.start);
    e->first = 0;
}

static void answer(Message *m) {
    Span entries[4096];
    int n = 0;
    const char *p = ws(m->legal.start);
    if (!m->legal.start || *p++ != '[') return;
    for (p = ws(p); *p && *p != ']' && n < 4096; p = ws(p)) {   /* the legal list: one span per entry */
        entries[n].start = p;
        if (!(p = skip_value(p))) return;
        entries[n++].end = p;
        p = ws(p);
        if (*p == ',') p++;
    }
    if (n == 0) return;
    Span pick = entries[next_random() % (unsigned long long)n];
    Entry e = {{0, 0}, 0, 1};
    printf("{\"type\":\"action\",\"table\":%.*s,\"request\":%.*s,\"action\":",
           m->table.start ? (int)(m->table.end - m->table.start) : 4, m->table.start ? m->table.start : "null",
           (int)(m->request.end - m->request.start), m->request.start);
    each_member(pick.start, find_range, &e);
    if (e.range == 3) {                                       /* a range: send amount = min */
        putchar('{');
        each_member(pick.start, copy_member, &e);
        printf("%s\"amount\":%.*s}", e.first ? "" : ",", (int)(e.min.end - e.min.start), e.min.start);
    } else {
        printf("%.*s", (int)(pick.end - pick.start), pick.start);
    }
    printf("}\n");
    fflush(stdout);                                            /* an unflushed answer is no answer */
}

int main(int argc, char **argv) {
    size_t size = 1 << 16, len = 0;
    char *line = malloc(size);
    if (argc > 1) rng_state ^= strtoull(argv[1], NULL, 10) * 0x9E3779B97F4A7C15ULL;
    if (!line) return 1;
    while (fgets(line + len, (int)(size - len), stdin)) {     /* one whole line, however long */
        len += strlen(line + len);
        if (len + 1 == size && line[len - 1] != '\n') {
            char *bigger = realloc(line, size *= 2);
            if (!bigger) return 1;
            line = bigger;
            continue;
        }
        Message m = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
        if (each_member(line, read_top, &m) && is(m.type, "\"action-request\"") && m.request.start)
            answer(&m);
        len = 0;
    }
    free(line);
    return 0;
}

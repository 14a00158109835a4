/* Plainly valid TREC run and qrels lines parsed in C (optional; see setup.py). Each
 * function accepts only input it is sure of and returns None otherwise, and the caller
 * hands that input to the exact per-line reader, which says what is wrong: this code
 * never reports a problem, so it can only ever be narrower than the exact rules.
 *
 * parse_run(block, article_passage) -> tuple | None
 * The compiled form of `evaluator.io.validation_fast.parse_fast`.
 *
 * It accepts only blocks in which every line is plainly valid: ASCII with no control byte
 * but the "\n" line ends, exactly six fields between single spaces, each 1-100 bytes, one
 * tag of [A-Za-z0-9_.-]{1,20} on every line, ranks [+-]?[0-9]{1,18}, finite decimal scores
 * (validation.SCORE_RE), and with `article_passage` docids of [0-9]+#[0-9]+. Anything else
 * returns None.
 *
 * On success: (qid_values, qid_indices, docid_offsets, docid_bytes, ranks, scores, hashes,
 * tag, count), the arrays as bytes in native byte order (int32, int32 with count + 1
 * offsets, int64, float64, uint64). qid_values lists the block's qids in order of first
 * appearance and qid_indices points each row into it; hashes are validation_fast's
 * docid_hashes (sum of byte_k * P^k mod 2^64), so blocks read either way mix. The lines
 * are parsed with the GIL released (qids and the rare long scores are turned into Python
 * objects after), so read_run's other thread runs meanwhile.
 *
 * parse_qrels(data) -> (qid_values, owner, docid_offsets, docid_bytes, labels, hashes,
 * count) | None: a qrels file of `qid iteration docid label` lines, fields of printable
 * ASCII between runs of spaces and tabs (trailing ones too), qid and docid of 1-100
 * bytes, labels [+-]?[0-9]{1,18}; owner and labels int64, the rest as parse_run's. No
 * comment, blank or CRLF line. Whether a docid is judged twice is the caller's check.
 *
 * any_repeated(keys) -> bool: whether a uint64 key occurs twice (the duplicate-docid
 * check's common case, in one linear pass).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_FIELD 100
#define MAX_TAG 20
#define MAX_RANK_DIGITS 18 /* below 2^63 whatever the digits */
#define EXACT_DIGITS 15    /* an integer of 15 digits is exact in a double */

static const uint64_t PRIME = 0x100000001B3ULL;
static const double POWERS[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int is_tag_byte(unsigned char c) {
    return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '.' || c == '-';
}

/* A rank [+-]?[0-9]{1,18} into *out; 0 when it is anything else. */
static int parse_rank(const unsigned char *p, Py_ssize_t n, int64_t *out) {
    int negative = 0;
    if (n && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        p++;
        n--;
    }
    if (n < 1 || n > MAX_RANK_DIGITS)
        return 0;
    int64_t value = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!is_digit(p[i]))
            return 0;
        value = value * 10 + (p[i] - '0');
    }
    *out = negative ? -value : value;
    return 1;
}

/* A finite decimal score, [+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?, into *out:
 * 1 when read, 0 when it is anything else, 2 when it needs `slow_score` (called with the
 * GIL held). Short mantissas with small exponents take Clinger's fast path (one exact
 * integer times or over one exact power of ten: correctly rounded, as float() is); the
 * rest go to Python's own correctly rounded, locale-free conversion. */
static int parse_score(const unsigned char *start, Py_ssize_t n, double *out) {
    const unsigned char *p = start, *end = start + n;
    int negative = 0, significant = 0, digits = 0;
    long fraction = 0, exponent = 0;
    uint64_t mantissa = 0;
    if (p < end && (*p == '+' || *p == '-'))
        negative = *p++ == '-';
    for (int in_fraction = 0; p < end; p++) {
        if (*p == '.' && !in_fraction) {
            in_fraction = 1;
            continue;
        }
        if (!is_digit(*p))
            break;
        digits++;
        fraction += in_fraction;
        if (mantissa || *p != '0') {
            if (++significant <= EXACT_DIGITS)
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
        }
    }
    if (!digits)
        return 0; /* "", ".", "+", "e5" */
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int exp_negative = 0, exp_digits = 0;
        if (p < end && (*p == '+' || *p == '-'))
            exp_negative = *p++ == '-';
        for (; p < end && is_digit(*p); p++, exp_digits++)
            if (exponent < 100000)
                exponent = exponent * 10 + (*p - '0');
        if (!exp_digits)
            return 0;
        if (exp_negative)
            exponent = -exponent;
    }
    if (p != end)
        return 0;
    long scale = exponent - fraction;
    if (significant > EXACT_DIGITS || scale < -22 || scale > 22)
        return 2;
    double value = scale >= 0 ? (double)mantissa * POWERS[scale] : (double)mantissa / POWERS[-scale];
    *out = negative ? -value : value;
    return 1; /* finite: at most 15 digits times at most 1e22 */
}

/* A score parse_score left for Python's conversion; 0 when it is not finite. */
static int slow_score(const unsigned char *start, Py_ssize_t n, double *out) {
    char text[MAX_FIELD + 1];
    memcpy(text, start, (size_t)n);
    text[n] = '\0';
    double value = PyOS_string_to_double(text, NULL, NULL);
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (!isfinite(value))
        return 0;
    *out = value;
    return 1;
}

/* Spans of the block noted while the GIL is released, for the Python work after it:
 * where each stretch of one qid starts, and the scores parse_score left to slow_score. */
typedef struct {
    Py_ssize_t row;
    const unsigned char *p;
    Py_ssize_t n;
} Span;

typedef struct {
    Span *items;
    Py_ssize_t count, capacity;
} Spans;

static int spans_add(Spans *spans, Py_ssize_t row, const unsigned char *p, Py_ssize_t n) {
    if (spans->count == spans->capacity) {
        Py_ssize_t capacity = spans->capacity ? 2 * spans->capacity : 256;
        Span *items = PyMem_RawRealloc(spans->items, (size_t)capacity * sizeof(Span));
        if (!items)
            return 0;
        spans->items = items;
        spans->capacity = capacity;
    }
    spans->items[spans->count++] = (Span){row, p, n};
    return 1;
}

/* [0-9]+#[0-9]+ */
static int is_article_passage(const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t marks = 0, at = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (p[i] == '#') {
            marks++;
            at = i;
        } else if (!is_digit(p[i])) {
            return 0;
        }
    }
    return marks == 1 && at > 0 && at < n - 1;
}

typedef struct {
    PyObject *values; /* list of str */
    PyObject *index;  /* dict str -> int */
    const unsigned char *last;
    Py_ssize_t last_len;
    int32_t last_code;
} Qids;

/* The block-local code of a qid; rows of one query come together, so most lines repeat
 * the previous line's qid and never reach the dict. -1 with an exception set on failure. */
static int32_t qid_code(Qids *qids, const unsigned char *p, Py_ssize_t n) {
    if (qids->last && n == qids->last_len && memcmp(p, qids->last, (size_t)n) == 0)
        return qids->last_code;
    PyObject *key = PyUnicode_DecodeASCII((const char *)p, n, NULL);
    if (!key)
        return -1;
    PyObject *found = PyDict_GetItemWithError(qids->index, key);
    int32_t code;
    if (found) {
        code = (int32_t)PyLong_AsLong(found);
    } else if (PyErr_Occurred()) {
        Py_DECREF(key);
        return -1;
    } else {
        code = (int32_t)PyList_GET_SIZE(qids->values);
        PyObject *number = PyLong_FromLong(code);
        int failed = !number || PyDict_SetItem(qids->index, key, number) < 0 || PyList_Append(qids->values, key) < 0;
        Py_XDECREF(number);
        if (failed) {
            Py_DECREF(key);
            return -1;
        }
    }
    Py_DECREF(key);
    qids->last = p;
    qids->last_len = n;
    qids->last_code = code;
    return code;
}

typedef struct {
    int32_t *qidx;
    int64_t *owner; /* qrels: the qid code as int64 */
    int32_t *offsets;
    unsigned char *docids;
    int64_t *ranks;
    double *scores;
    uint64_t *hashes;
} Columns;

/* Append row `row`'s docid to the docid bytes, with its hash (sum of byte_k * P^k,
 * by Horner's rule from the last byte). */
static void add_docid(Columns *out, Py_ssize_t row, const unsigned char *p, Py_ssize_t n) {
    int32_t at = out->offsets[row];
    memcpy(out->docids + at, p, (size_t)n);
    out->offsets[row + 1] = at + (int32_t)n;
    uint64_t hash = 0;
    for (Py_ssize_t i = n - 1; i >= 0; i--)
        hash = hash * PRIME + p[i];
    out->hashes[row] = hash;
}

/* Parse the line [p, end) into row `row` without touching Python objects (the GIL is
 * released): 1 when it is plainly valid, 0 to decline, -1 out of memory. The row's qid is
 * noted in `stretches` when it differs from the line before (qidx holds the stretch
 * number until the codes are known), a score for slow_score in `slow`. */
static int parse_line(const unsigned char *p, const unsigned char *end, Py_ssize_t row, Columns *out,
                      Spans *stretches, Spans *slow, const unsigned char **tag, Py_ssize_t *tag_len,
                      int article_passage) {
    const unsigned char *field[6];
    Py_ssize_t width[6];
    int count = 0;
    const unsigned char *start = p;
    for (;; p++) {
        if (p == end || *p == ' ') {
            if (count == 6)
                return 0; /* a seventh field */
            field[count] = start;
            width[count] = p - start;
            if (width[count] < 1 || width[count] > MAX_FIELD)
                return 0; /* empty (two spaces, a space first or last) or over-long */
            count++;
            if (p == end)
                break;
            start = p + 1;
        } else if (*p < 0x21 || *p >= 0x7f) {
            return 0; /* a tab, CR, other control byte, DEL or non-ASCII byte */
        }
    }
    if (count != 6 || width[5] > MAX_TAG)
        return 0;
    if (*tag) {
        if (width[5] != *tag_len || memcmp(field[5], *tag, (size_t)width[5]) != 0)
            return 0;
    } else {
        for (Py_ssize_t i = 0; i < width[5]; i++)
            if (!is_tag_byte(field[5][i]))
                return 0;
        *tag = field[5];
        *tag_len = width[5];
    }
    if (!parse_rank(field[3], width[3], &out->ranks[row]))
        return 0;
    int score = parse_score(field[4], width[4], &out->scores[row]);
    if (!score || (score == 2 && !spans_add(slow, row, field[4], width[4])))
        return score ? -1 : 0;
    if (article_passage && !is_article_passage(field[2], width[2]))
        return 0;
    Span *last = stretches->count ? &stretches->items[stretches->count - 1] : NULL;
    if (!last || last->n != width[0] || memcmp(last->p, field[0], (size_t)width[0]) != 0) {
        if (!spans_add(stretches, row, field[0], width[0]))
            return -1;
    }
    out->qidx[row] = (int32_t)(stretches->count - 1);
    add_docid(out, row, field[2], width[2]);
    return 1;
}

/* After the GIL-free pass: the slow scores converted, each stretch's qid given its code
 * (in order of first appearance) and every row its code. 1, 0 to decline, -1 on error. */
static int finish_run(Columns *out, Py_ssize_t lines, Spans *stretches, Spans *slow, Qids *qids) {
    for (Py_ssize_t i = 0; i < slow->count; i++) {
        Span *s = &slow->items[i];
        if (!slow_score(s->p, s->n, &out->scores[s->row]))
            return 0;
    }
    int32_t *codes = PyMem_Malloc((size_t)(stretches->count ? stretches->count : 1) * sizeof(int32_t));
    if (!codes) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < stretches->count; i++) {
        codes[i] = qid_code(qids, stretches->items[i].p, stretches->items[i].n);
        if (codes[i] < 0) {
            PyMem_Free(codes);
            return -1;
        }
    }
    for (Py_ssize_t row = 0; row < lines; row++)
        out->qidx[row] = codes[out->qidx[row]];
    PyMem_Free(codes);
    return 1;
}

static PyObject *new_bytes(Py_ssize_t size) { return PyBytes_FromStringAndSize(NULL, size); }

static PyObject *parse_run(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    int article_passage;
    if (!PyArg_ParseTuple(args, "y*p", &view, &article_passage))
        return NULL;
    const unsigned char *data = view.buf, *stop = data + view.len;
    PyObject *result = NULL, *values = NULL, *index = NULL, *arrays[6] = {NULL};
    Spans stretches = {NULL, 0, 0}, slow = {NULL, 0, 0};
    if (view.len == 0 || view.len >= INT32_MAX)
        goto decline; /* offsets are int32, as Arrow's strings */
    Py_ssize_t lines = 0;
    for (const unsigned char *p = data; (p = memchr(p, '\n', (size_t)(stop - p))); p++)
        lines++;
    lines += stop[-1] != '\n';
    Py_ssize_t sizes[6] = {4 * lines, 4 * (lines + 1), view.len, 8 * lines, 8 * lines, 8 * lines};
    for (int i = 0; i < 6; i++)
        if (!(arrays[i] = new_bytes(sizes[i])))
            goto error;
    values = PyList_New(0);
    index = PyDict_New();
    if (!values || !index)
        goto error;
    Columns out = {(int32_t *)PyBytes_AS_STRING(arrays[0]), NULL, (int32_t *)PyBytes_AS_STRING(arrays[1]),
                   (unsigned char *)PyBytes_AS_STRING(arrays[2]), (int64_t *)PyBytes_AS_STRING(arrays[3]),
                   (double *)PyBytes_AS_STRING(arrays[4]), (uint64_t *)PyBytes_AS_STRING(arrays[5])};
    out.offsets[0] = 0;
    Qids qids = {values, index, NULL, 0, 0};
    const unsigned char *tag = NULL;
    Py_ssize_t tag_len = 0, row = 0;
    int ok = 1;
    /* The lines are parsed without the GIL, so the reader's other thread (and numpy) run
     * meanwhile; the bytes stay alive and unchanged: the view holds the buffer. */
    Py_BEGIN_ALLOW_THREADS
    for (const unsigned char *p = data; p < stop && ok > 0; row++) {
        const unsigned char *end = memchr(p, '\n', (size_t)(stop - p));
        if (!end)
            end = stop;
        ok = parse_line(p, end, row, &out, &stretches, &slow, &tag, &tag_len, article_passage);
        p = end + 1;
    }
    Py_END_ALLOW_THREADS
    if (ok < 0) {
        PyErr_NoMemory();
        goto error;
    }
    if (ok > 0)
        ok = finish_run(&out, lines, &stretches, &slow, &qids);
    if (ok < 0)
        goto error;
    if (!ok)
        goto decline;
    if (_PyBytes_Resize(&arrays[2], out.offsets[lines]) < 0)
        goto error;
    result = Py_BuildValue("(NNNNNNNs#n)", values, arrays[0], arrays[1], arrays[2], arrays[3], arrays[4], arrays[5],
                           (const char *)tag, tag_len, lines);
    values = NULL; /* the tuple owns them now (N), or they were released on failure */
    for (int i = 0; i < 6; i++)
        arrays[i] = NULL;
    goto done;
decline:
    result = Py_NewRef(Py_None);
    goto done;
error:
    result = NULL;
done:
    PyMem_RawFree(stretches.items);
    PyMem_RawFree(slow.items);
    Py_XDECREF(values);
    Py_XDECREF(index);
    for (int i = 0; i < 6; i++)
        Py_XDECREF(arrays[i]);
    PyBuffer_Release(&view);
    return result;
}

static int is_blank(unsigned char c) { return c == ' ' || c == '\t'; }

/* One qrels line [p, end) into row `row`: 1 when plainly valid, 0 to decline, -1 on error. */
static int parse_qrels_line(const unsigned char *p, const unsigned char *end, Py_ssize_t row, Columns *out,
                            Qids *qids) {
    const unsigned char *field[4];
    Py_ssize_t width[4];
    int count = 0;
    while (p < end) {
        if (count == 4)
            return 0; /* a fifth field */
        field[count] = p;
        for (; p < end && !is_blank(*p); p++)
            if (*p < 0x21 || *p >= 0x7f)
                return 0; /* a CR, other control byte, DEL or non-ASCII byte */
        width[count] = p - field[count];
        count++;
        while (p < end && is_blank(*p))
            p++;
    }
    if (count != 4 || width[0] < 1 || field[0][0] == '#' || width[0] > MAX_FIELD || width[2] > MAX_FIELD)
        return 0; /* a blank line, a line starting with a blank, a comment, a long field */
    int64_t label;
    if (!parse_rank(field[3], width[3], &label))
        return 0;
    int32_t code = qid_code(qids, field[0], width[0]);
    if (code < 0)
        return -1;
    out->owner[row] = code;
    out->ranks[row] = label;
    add_docid(out, row, field[2], width[2]);
    return 1;
}

static PyObject *parse_qrels(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view))
        return NULL;
    const unsigned char *data = view.buf, *stop = data + view.len;
    PyObject *result = NULL, *values = NULL, *index = NULL, *arrays[5] = {NULL};
    if (view.len == 0 || view.len >= INT32_MAX)
        goto decline;
    Py_ssize_t lines = 0;
    for (const unsigned char *p = data; (p = memchr(p, '\n', (size_t)(stop - p))); p++)
        lines++;
    lines += stop[-1] != '\n';
    Py_ssize_t sizes[5] = {8 * lines, 4 * (lines + 1), view.len, 8 * lines, 8 * lines};
    for (int i = 0; i < 5; i++)
        if (!(arrays[i] = new_bytes(sizes[i])))
            goto error;
    values = PyList_New(0);
    index = PyDict_New();
    if (!values || !index)
        goto error;
    Columns out = {NULL, (int64_t *)PyBytes_AS_STRING(arrays[0]), (int32_t *)PyBytes_AS_STRING(arrays[1]),
                   (unsigned char *)PyBytes_AS_STRING(arrays[2]), (int64_t *)PyBytes_AS_STRING(arrays[3]), NULL,
                   (uint64_t *)PyBytes_AS_STRING(arrays[4])};
    out.offsets[0] = 0;
    Qids qids = {values, index, NULL, 0, 0};
    Py_ssize_t row = 0;
    for (const unsigned char *p = data; p < stop; row++) {
        const unsigned char *end = memchr(p, '\n', (size_t)(stop - p));
        if (!end)
            end = stop;
        int ok = parse_qrels_line(p, end, row, &out, &qids);
        if (ok < 0)
            goto error;
        if (!ok)
            goto decline;
        p = end + 1;
    }
    if (_PyBytes_Resize(&arrays[2], out.offsets[lines]) < 0)
        goto error;
    result = Py_BuildValue("(NNNNNNn)", values, arrays[0], arrays[1], arrays[2], arrays[3], arrays[4], lines);
    values = NULL;
    for (int i = 0; i < 5; i++)
        arrays[i] = NULL;
    goto done;
decline:
    result = Py_NewRef(Py_None);
    goto done;
error:
    result = NULL;
done:
    Py_XDECREF(values);
    Py_XDECREF(index);
    for (int i = 0; i < 5; i++)
        Py_XDECREF(arrays[i]);
    PyBuffer_Release(&view);
    return result;
}

/* Whether any uint64 key occurs twice, by one pass over an open-addressing table of at
 * least 1.5x as many slots as keys (the keys are hashes already: their top bits pick the
 * slot). Linear, where sorting the keys to find neighbours is n log n. */
static PyObject *any_repeated(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view))
        return NULL;
    const uint64_t *keys = view.buf;
    Py_ssize_t n = view.len / 8;
    int bits = 4;
    while (((Py_ssize_t)1 << bits) < n + n / 2)
        bits++;
    uint64_t mask = ((uint64_t)1 << bits) - 1, *table = PyMem_Calloc((size_t)1 << bits, sizeof(uint64_t));
    if (!table) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    int repeated = 0, seen_zero = 0; /* 0 marks an empty slot, so the key 0 is noted apart */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n && !repeated; i++) {
        uint64_t key = keys[i];
        if (!key) {
            repeated = seen_zero;
            seen_zero = 1;
            continue;
        }
        for (uint64_t slot = (key * 0x9E3779B97F4A7C15ULL) >> (64 - bits);; slot = (slot + 1) & mask) {
            if (!table[slot]) {
                table[slot] = key;
                break;
            }
            if (table[slot] == key) {
                repeated = 1;
                break;
            }
        }
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(table);
    PyBuffer_Release(&view);
    return PyBool_FromLong(repeated);
}

static PyMethodDef methods[] = {
    {"any_repeated", any_repeated, METH_VARARGS, "any_repeated(uint64 keys) -> whether a key occurs twice."},
    {"parse_run", parse_run, METH_VARARGS,
     "parse_run(block, article_passage) -> (qid_values, qid_indices, docid_offsets, docid_bytes, ranks, scores, "
     "hashes, tag, count), or None when any line needs the exact reader."},
    {"parse_qrels", parse_qrels, METH_VARARGS,
     "parse_qrels(data) -> (qid_values, owner, docid_offsets, docid_bytes, labels, hashes, count), or None when "
     "any line needs the exact reader."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_lines",
                                    "Plainly valid TREC run and qrels lines parsed in C (see validation_fast, qrels).",
                                    -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__lines(void) { return PyModule_Create(&module); }

// SPDX-License-Identifier: MIT
// Audio class (management 0x12, data 0x13), driven as Linux 6.1 drives it: the topology
// walked exactly as gbaudio_tplg_parse_data walks it (drivers/staging/greybus/
// audio_topology.c), the controls as the ALSA callbacks of that file read and write them,
// the playback sequence of audio_codec.c's gbaudio_module_enable_tx / disable_tx, the
// bridge's SEND_DATA on the data CPort; bad requests, random requests, backend commands.
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/audio.h"
#include "virtual-modules/audio_data.h"
#include "virtual-modules/audio_topology.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/fw_image.h"

/* ---- 6.1's layouts (include/linux/greybus/greybus_protocols.h), for offsetof/sizeof ----
 * Written from the kernel's definitions, independently of gb_protocols.h, so that a
 * constant or offset gbvp gets wrong disagrees with them. Fields are read little endian. */
struct k_topology {
    uint8_t num_dais, num_controls, num_widgets, num_routes;
    uint32_t size_dais, size_controls, size_widgets, size_routes, jack_type;
    uint8_t data[];
} __attribute__((packed));

struct k_integer {
    uint32_t min, max, step;
} __attribute__((packed));

struct k_integer64 {
    uint64_t min, max, step;
} __attribute__((packed));

struct k_enumerated {
    uint32_t items;
    uint16_t names_length;
    uint8_t names[];
} __attribute__((packed));

struct k_ctl_elem_info {
    uint8_t type;
    uint16_t dimen[4];
    union {
        struct k_integer integer;
        struct k_integer64 integer64;
        struct k_enumerated enumerated;
    } value;
} __attribute__((packed));

struct k_control {
    uint8_t name[32];
    uint8_t id, iface;
    uint16_t data_cport;
    uint32_t access;
    uint8_t count, count_values;
    struct k_ctl_elem_info info;
} __attribute__((packed));

struct k_widget {
    uint8_t name[32], sname[32];
    uint8_t id, type, state, ncontrols;
    uint8_t ctl[]; /* struct gb_audio_control ctl[ncontrols] */
} __attribute__((packed));

struct k_route {
    uint8_t source_id, destination_id, control_id, index;
} __attribute__((packed));

struct k_ctl_elem_value {
    uint64_t timestamp;
    union {
        uint32_t integer_value[2];
        uint64_t integer64_value[2];
        uint32_t enumerated_item[2];
    } value;
} __attribute__((packed));

_Static_assert(sizeof(struct k_topology) == GB_AUDIO_TOPOLOGY_HEADER_SIZE, "topology header");
_Static_assert(sizeof(struct k_control) == GB_AUDIO_CONTROL_SIZE, "control size");
_Static_assert(offsetof(struct k_control, info) == GB_AUDIO_CONTROL_INFO_OFFSET, "info");
_Static_assert(offsetof(struct k_ctl_elem_info, value) == GB_AUDIO_CTL_ELEM_INFO_VALUE_OFFSET,
               "value");
_Static_assert(offsetof(struct k_enumerated, names) == GB_AUDIO_ENUMERATED_NAMES_OFFSET,
               "names");
_Static_assert(sizeof(struct k_widget) == GB_AUDIO_WIDGET_SIZE, "widget size");
_Static_assert(sizeof(struct k_route) == GB_AUDIO_ROUTE_SIZE, "route size");
_Static_assert(sizeof(struct k_ctl_elem_value) == GB_AUDIO_CTL_ELEM_VALUE_SIZE, "value size");

#define AT(p, type, member) ((const uint8_t *)(p) + offsetof(type, member))
#define ENUM_AT(ctl, member)                                                                  \
    ((const uint8_t *)(ctl) + offsetof(struct k_control, info) +                              \
     offsetof(struct k_ctl_elem_info, value) + offsetof(struct k_enumerated, member))

/* ---- the walk of gbaudio_tplg_parse_data, with every bound it takes for granted ---- */

#define MAXN 16

typedef struct walked_control {
    char name[32];
    uint8_t id, type, count_values;
    int32_t min, max;
    unsigned items;
    char item[VM_AUDIO_MAX_ITEMS][64];
} walked_control;

typedef struct walked {
    unsigned ncontrols, nwidgets, nroutes, nwcontrols;
    walked_control control[MAXN], wcontrol[MAXN];
    char widget[MAXN][32], sname[MAXN][32];
    uint8_t widget_id[MAXN], widget_type[MAXN], widget_ncontrols[MAXN];
    struct k_route route[MAXN];
    uint32_t jack_type;
    char why[200];
} walked;

static bool fail_walk(walked *w, const char *why, unsigned i)
{
    snprintf(w->why, sizeof w->why, "%s (entry %u)", why, i);
    return false;
}

/* A NUL within the 32 bytes of a name field, and room for 6.1's "GB <id> " prefix. */
static bool name_ok(const uint8_t *field, bool prefixed, char *out)
{
    const uint8_t *nul = memchr(field, '\0', 32);
    if (!nul || nul == field)
        return false;
    memcpy(out, field, (size_t)(nul - field) + 1);
    return !prefixed || strlen(out) + strlen("GB 255 ") <= 31;
}

/* One control at p (no further than end): the size 6.1 steps by, 0 when it is malformed. */
static size_t walk_control(const uint8_t *p, const uint8_t *end, bool prefixed,
                           walked_control *c)
{
    const size_t head = offsetof(struct k_control, info) +
                        offsetof(struct k_ctl_elem_info, value) +
                        offsetof(struct k_enumerated, names);
    if ((size_t)(end - p) < head || !name_ok(p, prefixed, c->name))
        return 0;
    c->id = *AT(p, struct k_control, id);
    c->type = *AT(p, struct k_control, info.type);
    c->count_values = *AT(p, struct k_control, count_values);
    if (*AT(p, struct k_control, iface) != GB_AUDIO_CTL_ELEM_IFACE_MIXER ||
        *AT(p, struct k_control, count) < 1 || c->count_values < 1 || c->count_values > 2)
        return 0; /* gbaudio_tplg_create_kcontrol: -EINVAL for another iface */
    if (c->type == GB_AUDIO_CTL_ELEM_TYPE_ENUMERATED) {
        c->items = gb_get_le32(ENUM_AT(p, items));
        size_t names_length = gb_get_le16(ENUM_AT(p, names_length));
        size_t csize = head + names_length;
        if (c->items < 1 || c->items > VM_AUDIO_MAX_ITEMS || csize > (size_t)(end - p))
            return 0;
        /* gb_generate_enum_strings: each name runs to its NUL */
        const uint8_t *n = ENUM_AT(p, names), *stop = n + names_length;
        for (unsigned i = 0; i < c->items; i++) {
            const uint8_t *nul = memchr(n, '\0', (size_t)(stop - n));
            if (!nul || nul == n || (size_t)(nul - n) >= sizeof c->item[i])
                return 0;
            memcpy(c->item[i], n, (size_t)(nul - n) + 1);
            n = nul + 1;
        }
        return n == stop ? csize : 0; /* names_length is exactly the names */
    }
    if (c->type != GB_AUDIO_CTL_ELEM_TYPE_BOOLEAN && c->type != GB_AUDIO_CTL_ELEM_TYPE_INTEGER)
        return 0; /* gbcodec_mixer_ctl_get: "Invalid type" */
    if (sizeof(struct k_control) > (size_t)(end - p))
        return 0;
    c->min = (int32_t)gb_get_le32(AT(p, struct k_control, info.value.integer.min));
    c->max = (int32_t)gb_get_le32(AT(p, struct k_control, info.value.integer.max));
    if (c->min > c->max || (c->type == GB_AUDIO_CTL_ELEM_TYPE_BOOLEAN && c->max != 1))
        return 0;
    return sizeof(struct k_control);
}

static bool widget_type_6_1_creates(uint8_t t)
{
    static const uint8_t ok[] = {GB_AUDIO_WIDGET_TYPE_SPK,    GB_AUDIO_WIDGET_TYPE_HP,
                                 GB_AUDIO_WIDGET_TYPE_MIC,    GB_AUDIO_WIDGET_TYPE_OUTPUT,
                                 GB_AUDIO_WIDGET_TYPE_INPUT,  GB_AUDIO_WIDGET_TYPE_SWITCH,
                                 GB_AUDIO_WIDGET_TYPE_PGA,    GB_AUDIO_WIDGET_TYPE_MIXER,
                                 GB_AUDIO_WIDGET_TYPE_MUX,    GB_AUDIO_WIDGET_TYPE_AIF_IN,
                                 GB_AUDIO_WIDGET_TYPE_AIF_OUT};
    return memchr(ok, t, sizeof ok) != NULL;
}

/* gbaudio_validate_kcontrol_count */
static bool kcontrol_count_ok(uint8_t type, uint8_t n)
{
    switch (type) {
    case GB_AUDIO_WIDGET_TYPE_SPK:
    case GB_AUDIO_WIDGET_TYPE_HP:
    case GB_AUDIO_WIDGET_TYPE_MIC:
    case GB_AUDIO_WIDGET_TYPE_OUTPUT:
    case GB_AUDIO_WIDGET_TYPE_INPUT:
        return n == 0;
    case GB_AUDIO_WIDGET_TYPE_SWITCH:
    case GB_AUDIO_WIDGET_TYPE_MUX:
        return n == 1;
    default:
        return true;
    }
}

static bool walk_as_6_1(const uint8_t *t, size_t size, walked *w)
{
    memset(w, 0, sizeof *w);
    /* gb_audio_gb_get_topology */
    if (size < sizeof(struct k_topology))
        return fail_walk(w, "shorter than the header", 0);
    uint64_t sizes = (uint64_t)gb_get_le32(AT(t, struct k_topology, size_dais)) +
                     gb_get_le32(AT(t, struct k_topology, size_controls)) +
                     gb_get_le32(AT(t, struct k_topology, size_widgets)) +
                     gb_get_le32(AT(t, struct k_topology, size_routes));
    if (sizes > size - sizeof(struct k_topology))
        return fail_walk(w, "sections larger than the topology", 0);
    /* gbaudio_register_module refuses DAIs */
    if (t[0] != 0 || gb_get_le32(AT(t, struct k_topology, size_dais)) != 0)
        return fail_walk(w, "DAIs", 0);
    /* gbaudio_tplg_process_header */
    const uint8_t *controls = t + offsetof(struct k_topology, data);
    const uint8_t *widgets = controls + gb_get_le32(AT(t, struct k_topology, size_controls));
    const uint8_t *routes = widgets + gb_get_le32(AT(t, struct k_topology, size_widgets));
    const uint8_t *end = routes + gb_get_le32(AT(t, struct k_topology, size_routes));
    w->ncontrols = t[1];
    w->nwidgets = t[2];
    w->nroutes = t[3];
    w->jack_type = gb_get_le32(AT(t, struct k_topology, jack_type));
    if (w->ncontrols > MAXN || w->nwidgets > MAXN || w->nroutes > MAXN)
        return fail_walk(w, "too many entries for this test", 0);

    /* gbaudio_tplg_process_kcontrols */
    const uint8_t *p = controls;
    for (unsigned i = 0; i < w->ncontrols; i++) {
        size_t csize = walk_control(p, widgets, true, &w->control[i]);
        if (!csize)
            return fail_walk(w, "malformed control", i);
        p += csize;
    }
    if (p != widgets)
        return fail_walk(w, "size_controls is not the controls' size", 0);

    /* gbaudio_tplg_process_widgets / gbaudio_tplg_create_widget */
    for (unsigned i = 0; i < w->nwidgets; i++) {
        if ((size_t)(routes - p) < sizeof(struct k_widget) ||
            !name_ok(p, true, w->widget[i]))
            return fail_walk(w, "malformed widget", i);
        w->widget_id[i] = *AT(p, struct k_widget, id);
        w->widget_type[i] = *AT(p, struct k_widget, type);
        w->widget_ncontrols[i] = *AT(p, struct k_widget, ncontrols);
        if (!widget_type_6_1_creates(w->widget_type[i]))
            return fail_walk(w, "a widget type 6.1 does not create", i);
        if (!kcontrol_count_ok(w->widget_type[i], w->widget_ncontrols[i]))
            return fail_walk(w, "invalid kcontrol count", i);
        const uint8_t *sname = AT(p, struct k_widget, sname);
        if (!memchr(sname, '\0', 32))
            return fail_walk(w, "stream name without NUL", i);
        memcpy(w->sname[i], sname, 32);
        size_t w_size = sizeof(struct k_widget);
        for (unsigned k = 0; k < w->widget_ncontrols[i]; k++) {
            if (w->nwcontrols == MAXN)
                return fail_walk(w, "too many widget controls", i);
            size_t csize =
                walk_control(p + w_size, routes, false, &w->wcontrol[w->nwcontrols++]);
            if (!csize)
                return fail_walk(w, "malformed widget control", i);
            w_size += csize;
        }
        p += w_size;
    }
    if (p != routes)
        return fail_walk(w, "size_widgets is not the widgets' size", 0);

    /* gbaudio_tplg_process_routes */
    if ((size_t)(end - routes) != w->nroutes * sizeof(struct k_route))
        return fail_walk(w, "size_routes is not the routes' size", 0);
    if ((size_t)(end - t) != size)
        return fail_walk(w, "bytes after the routes", 0);
    memcpy(w->route, routes, w->nroutes * sizeof(struct k_route));
    for (unsigned i = 0; i < w->nroutes; i++) {
        bool src = false, dst = false;
        for (unsigned k = 0; k < w->nwidgets; k++) {
            src |= w->widget_id[k] == w->route[i].source_id;
            dst |= w->widget_id[k] == w->route[i].destination_id;
        }
        if (!src || !dst)
            return fail_walk(w, "route between unknown widgets", i);
        /* 6.1 hands no widget control to DAPM, which refuses a route that names one */
        if (w->route[i].control_id != GB_AUDIO_INVALID_INDEX)
            return fail_walk(w, "route with a control", i);
    }
    /* ids: unique among widgets, and among all controls (gbaudio_map_controlid) */
    for (unsigned i = 0; i < w->nwidgets; i++)
        for (unsigned k = i + 1; k < w->nwidgets; k++)
            if (w->widget_id[i] == w->widget_id[k] || !strcmp(w->widget[i], w->widget[k]))
                return fail_walk(w, "two widgets of one id or name", i);
    uint8_t ids[2 * MAXN];
    unsigned nids = 0;
    for (unsigned i = 0; i < w->ncontrols; i++)
        ids[nids++] = w->control[i].id;
    for (unsigned i = 0; i < w->nwcontrols; i++)
        ids[nids++] = w->wcontrol[i].id;
    for (unsigned i = 0; i < nids; i++)
        for (unsigned k = i + 1; k < nids; k++)
            if (ids[i] == ids[k] || ids[i] > 63)
                return fail_walk(w, "control ids not unique 0..63", i);
    return true;
}

/* ---- the module, as the AP drives it ---- */

static const uint16_t cports12[] = {1, 2};
static char mnfs_buf[4096], beh_buf[2048];

static const char *speaker_mnfs(void)
{
    return vmt_catalog_text("speaker.mnfs", mnfs_buf, sizeof mnfs_buf);
}

/* The catalog speaker, with its behaviour or `behaviour` instead. */
static bool up(vmt *t, const char *behaviour)
{
    const char *mnfs = speaker_mnfs();
    if (!behaviour)
        behaviour = vmt_catalog_text("speaker.behaviour", beh_buf, sizeof beh_buf);
    return vmt_up(t, mnfs, behaviour, cports12, 2);
}

static uint8_t op(vmt *t, uint8_t type, const void *p, size_t len, uint8_t *out,
                  size_t *out_len)
{
    return vmt_op(t, 1, 7, type, p, len, out, out_len);
}

/* What gb_audio_gb_get_topology fetches: the size, then exactly that many bytes. */
static size_t fetch_topology(vmt *t, uint8_t *topo)
{
    uint8_t o[GB_MSG_MAX_PAYLOAD];
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(op(t, GB_AUDIO_TYPE_GET_TOPOLOGY_SIZE, NULL, 0, o, &n), 0);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    size_t size = gb_get_le16(o);
    CU_ASSERT_EQUAL_FATAL(op(t, GB_AUDIO_TYPE_GET_TOPOLOGY, NULL, 0, topo, &n), 0);
    CU_ASSERT_EQUAL_FATAL(n, size);
    return size;
}

static uint8_t get_control(vmt *t, uint8_t id, uint8_t index, int32_t v[2])
{
    uint8_t req[2] = {id, index}, o[64];
    size_t n = 0;
    uint8_t r = op(t, GB_AUDIO_TYPE_GET_CONTROL, req, sizeof req, o, &n);
    if (r == GB_OP_SUCCESS) {
        CU_ASSERT_EQUAL(n, GB_AUDIO_CTL_ELEM_VALUE_SIZE);
        v[0] = (int32_t)gb_get_le32(o + 8);
        v[1] = (int32_t)gb_get_le32(o + 12);
    } else {
        CU_ASSERT_EQUAL(n, 0);
    }
    return r;
}

/* As gbcodec_mixer_ctl_put builds it: a mono control leaves value[1] (and the timestamp)
 * as whatever its stack held, here 0xa5 bytes. */
static uint8_t set_control(vmt *t, uint8_t id, uint8_t index, int32_t v0, int32_t v1)
{
    uint8_t req[GB_AUDIO_SET_CONTROL_REQ_SIZE];
    memset(req, 0xa5, sizeof req);
    req[0] = id;
    req[1] = index;
    gb_put_le32(req + 2 + 8, (uint32_t)v0);
    if (v1 != INT32_MIN)
        gb_put_le32(req + 2 + 12, (uint32_t)v1);
    return op(t, GB_AUDIO_TYPE_SET_CONTROL, req, sizeof req, NULL, NULL);
}

static uint8_t widget(vmt *t, bool enable, uint8_t id)
{
    return op(t, enable ? GB_AUDIO_TYPE_ENABLE_WIDGET : GB_AUDIO_TYPE_DISABLE_WIDGET, &id, 1,
              NULL, NULL);
}

static uint8_t set_pcm(vmt *t, uint16_t cport, uint32_t fmt, uint32_t rate, uint8_t ch,
                       uint8_t bits)
{
    uint8_t req[GB_AUDIO_SET_PCM_REQ_SIZE];
    gb_put_le16(req, cport);
    gb_put_le32(req + 2, fmt);
    gb_put_le32(req + 6, rate);
    req[10] = ch;
    req[11] = bits;
    return op(t, GB_AUDIO_TYPE_SET_PCM, req, sizeof req, NULL, NULL);
}

static uint8_t data_size(vmt *t, uint8_t type, uint16_t cport, uint16_t size)
{
    uint8_t req[4];
    gb_put_le16(req, cport);
    gb_put_le16(req + 2, size);
    return op(t, type, req, sizeof req, NULL, NULL);
}

static uint8_t on_cport(vmt *t, uint8_t type, uint16_t cport)
{
    uint8_t req[2];
    gb_put_le16(req, cport);
    return op(t, type, req, sizeof req, NULL, NULL);
}

/* gbaudio_module_enable_tx after the AIF widget's PRE_PMU: set_pcm, 192 bytes, activate. */
static void enable_tx(vmt *t)
{
    CU_ASSERT_EQUAL(widget(t, true, 0), 0);
    CU_ASSERT_EQUAL(set_pcm(t, 2, GB_AUDIO_PCM_FMT_S16_LE, GB_AUDIO_PCM_RATE_48000, 2, 16), 0);
    CU_ASSERT_EQUAL(data_size(t, GB_AUDIO_TYPE_SET_TX_DATA_SIZE, 2, 192), 0);
    CU_ASSERT_EQUAL(on_cport(t, GB_AUDIO_TYPE_ACTIVATE_TX, 2), 0);
}

/* One SEND_DATA on the data CPort, unidirectional as the bridge sends it: no answer. */
static void send_data(vmt *t, uint64_t ts, const uint8_t *samples, size_t n)
{
    uint8_t p[GB_MSG_MAX_PAYLOAD];
    gb_put_le64(p, ts);
    memcpy(p + 8, samples, n);
    CU_ASSERT_EQUAL(vmt_request(t, 2, 0, GB_AUDIO_TYPE_SEND_DATA, p, 8 + n), 0);
}

static vm_audio *module(vmt *t)
{
    vm_audio *a = vm_interface_audio(t->intf, VM_ANY_CPORT);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    return a;
}

static const vm_audio_stream *stream(vmt *t)
{
    const vm_audio_stream *s = vm_audio_get_stream(module(t), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    return s;
}

static int command(vmt *t, const char *line, vm_reply *r)
{
    return vm_backend_command(t->intf, line, 0, r);
}

static int64_t reply_int(const vm_reply *r, const char *name)
{
    const vm_value *v = vm_reply_get(r, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    return v->i;
}

/* ---- the topology ---- */

static bool reachable(const walked *w, uint8_t from, uint8_t to)
{
    bool seen[256] = {false};
    uint8_t queue[256];
    size_t head = 0, tail = 0;
    queue[tail++] = from;
    seen[from] = true;
    while (head < tail) {
        uint8_t at = queue[head++];
        if (at == to)
            return true;
        for (unsigned i = 0; i < w->nroutes; i++)
            if (w->route[i].source_id == at && !seen[w->route[i].destination_id]) {
                seen[w->route[i].destination_id] = true;
                queue[tail++] = w->route[i].destination_id;
            }
    }
    return false;
}

static void test_audio_topology_parses_as_6_1_parses_it(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, "[cport 1]\ntopology-controls = yes\n"));
    static uint8_t topo[GB_MSG_MAX_PAYLOAD];
    size_t size = fetch_topology(&t, topo);
    static walked w;
    bool ok = walk_as_6_1(topo, size, &w);
    if (!ok)
        fprintf(stderr, "\n%s\n", w.why);
    CU_ASSERT_FATAL(ok);
    /* the controls ALSA shows as "GB <id> NAME" */
    CU_ASSERT_EQUAL_FATAL(w.ncontrols, 3);
    CU_ASSERT_STRING_EQUAL(w.control[0].name, "Speaker Volume");
    CU_ASSERT_EQUAL(w.control[0].type, GB_AUDIO_CTL_ELEM_TYPE_INTEGER);
    CU_ASSERT_EQUAL(w.control[0].count_values, 2);
    CU_ASSERT_TRUE(w.control[0].min == 0 && w.control[0].max == 100);
    CU_ASSERT_STRING_EQUAL(w.control[1].name, "Speaker Mute");
    CU_ASSERT_EQUAL(w.control[1].type, GB_AUDIO_CTL_ELEM_TYPE_BOOLEAN);
    CU_ASSERT_STRING_EQUAL(w.control[2].name, "Speaker EQ");
    CU_ASSERT_EQUAL(w.control[2].type, GB_AUDIO_CTL_ELEM_TYPE_ENUMERATED);
    CU_ASSERT_EQUAL_FATAL(w.control[2].items, 4);
    CU_ASSERT_STRING_EQUAL(w.control[2].item[0], "Flat");
    CU_ASSERT_STRING_EQUAL(w.control[2].item[3], "Voice");
    /* the widgets: AIF in on the codec's playback stream, an amp with a switch, a speaker */
    CU_ASSERT_EQUAL_FATAL(w.nwidgets, 3);
    CU_ASSERT_STRING_EQUAL(w.widget[0], "Speaker AIF");
    /* (6.1's enum snd_soc_dapm_type: aif_in 23, pga 6, spk 13; the specification's numbers,
     * 0x17, 0x07 and 0x0e, make 6.1 refuse the amp and take the speaker for a line) */
    CU_ASSERT_EQUAL(w.widget_type[0], 23);
    CU_ASSERT_STRING_EQUAL(w.widget[1], "Speaker Amp");
    CU_ASSERT_EQUAL(w.widget_type[1], 6);
    CU_ASSERT_STRING_EQUAL(w.widget[2], "Speaker");
    CU_ASSERT_EQUAL(w.widget_type[2], 13);
    CU_ASSERT_EQUAL_FATAL(w.nwcontrols, 1);
    CU_ASSERT_STRING_EQUAL(w.wcontrol[0].name, "Speaker Switch");
    CU_ASSERT_EQUAL(w.wcontrol[0].type, GB_AUDIO_CTL_ELEM_TYPE_BOOLEAN);
    CU_ASSERT_EQUAL(w.jack_type, 0);
    /* gbaudio_module_update's sscanf("%s %d %s") gives DAI 0, and ASoC's strstr links the
     * widget to the codec DAI's stream "I2S 0 Playback" */
    char intf[32], dir[32];
    int dai = -1;
    CU_ASSERT_EQUAL(sscanf(w.sname[0], "%31s %d %31s", intf, &dai, dir), 3);
    CU_ASSERT_EQUAL(dai, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(w.sname[0], "I2S 0 Playback"));
    /* a DAPM path from the AIF to the speaker: what makes a playback power the module */
    CU_ASSERT_TRUE(reachable(&w, w.widget_id[0], w.widget_id[2]));
    vmt_down(&t);
}

static void test_audio_topology_with_a_jack_adds_the_widget_and_jack_type(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, "[cport 1]\njack = headset\n"));
    static uint8_t topo[GB_MSG_MAX_PAYLOAD];
    size_t size = fetch_topology(&t, topo);
    static walked w;
    CU_ASSERT_FATAL(walk_as_6_1(topo, size, &w));
    CU_ASSERT_EQUAL_FATAL(w.nwidgets, 4);
    /* the jack pin 6.1 names "GB <id> Headset Jack" is this widget */
    CU_ASSERT_STRING_EQUAL(w.widget[3], "Headset Jack");
    CU_ASSERT_EQUAL(w.widget_type[3], 12); /* snd_soc_dapm_hp */
    CU_ASSERT_EQUAL(w.jack_type, GB_AUDIO_JACK_HEADSET);
    CU_ASSERT_TRUE(reachable(&w, w.widget_id[0], w.widget_id[3]));
    vmt_down(&t);
}

/* The catalog's speaker lists no controls (6.1 hangs on them): the widgets and routes stay,
 * and the module keeps the control values all the same. */
static void test_audio_catalog_topology_has_no_controls_for_6_1(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, NULL));
    static uint8_t topo[GB_MSG_MAX_PAYLOAD];
    size_t size = fetch_topology(&t, topo);
    static walked w;
    CU_ASSERT_FATAL(walk_as_6_1(topo, size, &w));
    CU_ASSERT_EQUAL(w.ncontrols, 0);
    CU_ASSERT_EQUAL(w.nwidgets, 3);
    CU_ASSERT_EQUAL(topo[1], 0); /* num_controls */
    CU_ASSERT_EQUAL(gb_get_le32(topo + 8), 0); /* size_controls */
    vmt_down(&t);
    CU_ASSERT_FALSE(up(&t, "[cport 1]\ntopology-controls = maybe\n"));
}

/* The walk is strict enough to catch the layout mistakes a builder could make. */
static void test_audio_topology_walk_catches_layout_mistakes(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, "[cport 1]\ntopology-controls = yes\n"));
    size_t size;
    const uint8_t *good = vm_audio_topology(module(&t), &size);
    static uint8_t bad[GB_MSG_MAX_PAYLOAD];
    static walked w;
    CU_ASSERT_TRUE(walk_as_6_1(good, size, &w));
    const size_t ctl0 = GB_AUDIO_TOPOLOGY_HEADER_SIZE;
    const size_t eq = ctl0 + 2 * GB_AUDIO_CONTROL_SIZE; /* the third control */
    struct {
        size_t off;
        uint8_t delta;
        const char *why;
    } cases[] = {
        {8, 1, "size_controls"},                               /* a section one byte off */
        {12, 0xff, "size_widgets"},                            /* ... or one byte short */
        {eq + GB_AUDIO_CONTROL_INFO_OFFSET + 9 + 4, 0xff, "names_length"}, /* one short */
        {eq + GB_AUDIO_CONTROL_INFO_OFFSET + 9, 1, "items"},   /* one more item than names */
        {ctl0 + 33, 1, "iface"},                               /* not MIXER */
        {ctl0 + GB_AUDIO_CONTROL_INFO_OFFSET, 4, "type"},      /* INTEGER -> 6 (INTEGER64) */
        {2, 1, "num_widgets"},
        {0, 1, "num_dais"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(bad, good, size);
        bad[cases[i].off] = (uint8_t)(bad[cases[i].off] + cases[i].delta);
        if (walk_as_6_1(bad, size, &w))
            fprintf(stderr, "\nthe walk missed a wrong %s\n", cases[i].why);
        CU_ASSERT_FALSE(walk_as_6_1(bad, size, &w));
    }
    /* a name filling its 32 bytes: no NUL */
    memcpy(bad, good, size);
    memset(bad + ctl0, 'x', 32);
    CU_ASSERT_FALSE(walk_as_6_1(bad, size, &w));
    /* a truncated answer */
    CU_ASSERT_FALSE(walk_as_6_1(good, size - 1, &w));
    vmt_down(&t);
}

static void test_audio_topology_builder_refuses_what_6_1_cannot_parse(void)
{
    static uint8_t buf[GB_MSG_MAX_PAYLOAD];
    static const char *const items[] = {"A", "Bb", NULL};
    vm_audio_control_desc c = {"Gain", "gain", 1, GB_AUDIO_CTL_ELEM_TYPE_ENUMERATED, 1,
                               0, 0, 0, 0, items};
    vm_audio_widget_desc wd = {"Out", NULL, 0, GB_AUDIO_WIDGET_TYPE_OUTPUT, NULL, 0};
    vm_audio_topology_desc d = {&c, 1, &wd, 1, NULL, 0, 0, 5};
    CU_ASSERT_EQUAL(vm_audio_enum_names_length(&c), 5);
    size_t n = vm_audio_topology_build(&d, buf, sizeof buf);
    CU_ASSERT_EQUAL(n, GB_AUDIO_TOPOLOGY_HEADER_SIZE + GB_AUDIO_ENUM_CONTROL_SIZE(5) +
                           GB_AUDIO_WIDGET_SIZE);
    static walked w;
    CU_ASSERT_TRUE(walk_as_6_1(buf, n, &w));
    CU_ASSERT_EQUAL(gb_get_le16(buf + GB_AUDIO_TOPOLOGY_HEADER_SIZE + 34), 5); /* data CPort */
    CU_ASSERT_EQUAL(vm_audio_topology_build(&d, buf, n - 1), 0);              /* too small */
    c.name = "A name longer than 24 chars";
    CU_ASSERT_EQUAL(vm_audio_topology_build(&d, buf, sizeof buf), 0);
    c.name = "Gain";
    c.type = GB_AUDIO_CTL_ELEM_TYPE_INTEGER64;
    CU_ASSERT_EQUAL(vm_audio_topology_build(&d, buf, sizeof buf), 0);
    c.type = GB_AUDIO_CTL_ELEM_TYPE_ENUMERATED;
    c.items = NULL;
    CU_ASSERT_EQUAL(vm_audio_topology_build(&d, buf, sizeof buf), 0);
    c.items = items;
    c.count_values = 3;
    CU_ASSERT_EQUAL(vm_audio_topology_build(&d, buf, sizeof buf), 0);
    c.count_values = 1;
    wd.name = "";
    CU_ASSERT_EQUAL(vm_audio_topology_build(&d, buf, sizeof buf), 0);
}

/* ---- controls and widgets ---- */

static void test_audio_controls_read_and_write_as_the_alsa_callbacks_do(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, NULL));
    int32_t v[2];
    CU_ASSERT_EQUAL(get_control(&t, 0, 0xff, v), 0);
    CU_ASSERT_TRUE(v[0] == 80 && v[1] == 80);
    CU_ASSERT_EQUAL(set_control(&t, 0, 0xff, 30, 70), 0);
    CU_ASSERT_EQUAL(get_control(&t, 0, 0xff, v), 0);
    CU_ASSERT_TRUE(v[0] == 30 && v[1] == 70);
    CU_ASSERT_EQUAL(set_control(&t, 1, 0xff, 1, 0), 0); /* mute the left channel */
    CU_ASSERT_EQUAL(get_control(&t, 1, 0, v), 0);       /* index 0: the only element */
    CU_ASSERT_TRUE(v[0] == 1 && v[1] == 0);
    /* enumerated, mono: value[1] is garbage the module must not look at */
    CU_ASSERT_EQUAL(set_control(&t, 2, 0xff, 2, INT32_MIN), 0);
    CU_ASSERT_EQUAL(get_control(&t, 2, 0xff, v), 0);
    CU_ASSERT_TRUE(v[0] == 2 && v[1] == 0);
    /* the amp's switch (a widget control: reachable by id, though 6.1 never asks) */
    CU_ASSERT_EQUAL(get_control(&t, 3, 0xff, v), 0);
    CU_ASSERT_EQUAL(v[0], 1);
    CU_ASSERT_EQUAL(set_control(&t, 3, 0xff, 0, INT32_MIN), 0);
    vm_audio_control_info ci;
    CU_ASSERT_EQUAL(vm_audio_get_control(module(&t), 2, &ci), 0);
    CU_ASSERT_STRING_EQUAL(ci.item, "Treble");
    CU_ASSERT_EQUAL(vm_audio_get_control(module(&t), 3, &ci), 0);
    CU_ASSERT_TRUE(ci.in_widget && ci.value[0] == 0);
    CU_ASSERT_EQUAL(vm_audio_get_control(module(&t), 4, &ci), -EINVAL);
    vm_audio_stats st;
    vm_audio_get_stats(module(&t), &st);
    CU_ASSERT_EQUAL(st.control_sets, 4);
    CU_ASSERT_EQUAL(st.control_gets, 5);
    CU_ASSERT_EQUAL(st.refused, 0);
    vmt_down(&t);
}

static void test_audio_widgets_follow_enable_and_disable(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, NULL));
    vm_audio_widget_info wi;
    CU_ASSERT_EQUAL(vm_audio_get_widget(module(&t), 1, &wi), 0);
    CU_ASSERT_FALSE(wi.enabled);
    CU_ASSERT_EQUAL(widget(&t, true, 1), 0);
    CU_ASSERT_EQUAL(widget(&t, true, 1), 0); /* again: still on, counted */
    vm_audio_get_widget(module(&t), 1, &wi);
    CU_ASSERT_TRUE(wi.enabled && wi.enables == 2);
    CU_ASSERT_STRING_EQUAL(wi.name, "Speaker Amp");
    CU_ASSERT_EQUAL(widget(&t, false, 1), 0);
    vm_audio_get_widget(module(&t), 1, &wi);
    CU_ASSERT_FALSE(wi.enabled);
    CU_ASSERT_EQUAL(widget(&t, true, 3), GB_OP_INVALID); /* the jack widget: not without one */
    CU_ASSERT_EQUAL(vm_audio_get_widget(module(&t), 3, &wi), -EINVAL);
    vmt_down(&t);
}

/* ---- the playback path ---- */

static void test_audio_playback_sequence_counts_and_checks_the_samples(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, NULL));
    uint8_t o[16];
    size_t n = 0;
    uint8_t req[2];
    gb_put_le16(req, 2);
    CU_ASSERT_EQUAL(op(&t, GB_AUDIO_TYPE_GET_PCM, req, 2, o, &n), 0); /* the defaults */
    CU_ASSERT_EQUAL(n, GB_AUDIO_PCM_SIZE);
    CU_ASSERT_EQUAL(gb_get_le32(o), GB_AUDIO_PCM_FMT_S16_LE);
    CU_ASSERT_EQUAL(gb_get_le32(o + 4), GB_AUDIO_PCM_RATE_48000);
    CU_ASSERT_TRUE(o[8] == 2 && o[9] == 16);
    enable_tx(&t);
    CU_ASSERT_TRUE(stream(&t)->tx_active && stream(&t)->tx_size == 192);
    /* 100 periods of 1 ms: 48 stereo frames each, a ramp with one loud sample */
    static uint8_t all[100 * 192];
    for (size_t i = 0; i < sizeof all / 2; i++)
        gb_put_le16(all + 2 * i, (uint16_t)(int16_t)((int)(i % 2000) - 1000));
    gb_put_le16(all + 2 * 777, (uint16_t)(int16_t)-32768);
    for (unsigned k = 0; k < 100; k++)
        send_data(&t, 1000000ull * k, all + 192 * k, 192);
    const vm_audio_stream *s = stream(&t);
    CU_ASSERT_EQUAL(s->messages, 100);
    CU_ASSERT_EQUAL(s->bytes, sizeof all);
    CU_ASSERT_EQUAL(s->frames, 100 * 48);
    CU_ASSERT_EQUAL(s->last_timestamp, 99000000ull);
    CU_ASSERT_EQUAL(s->session_crc, vm_fw_crc32(all, sizeof all)); /* zlib's crc32 */
    CU_ASSERT_EQUAL(s->session_peak, 32768);
    CU_ASSERT_EQUAL(s->dropped_inactive + s->dropped_size, 0);
    /* gbaudio_module_disable_tx: deactivate; then data is dropped and counted */
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_DEACTIVATE_TX, 2), 0);
    CU_ASSERT_EQUAL(widget(&t, false, 0), 0);
    send_data(&t, 1, all, 192);
    CU_ASSERT_EQUAL(s->dropped_inactive, 1);
    CU_ASSERT_EQUAL(s->messages, 100);
    /* the next playback: 6.1 sends only size and activate (its state is HWPARAMS) */
    CU_ASSERT_EQUAL(data_size(&t, GB_AUDIO_TYPE_SET_TX_DATA_SIZE, 2, 192), 0);
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_ACTIVATE_TX, 2), 0);
    send_data(&t, 2, all, 192);
    CU_ASSERT_EQUAL(s->session_bytes, 192);
    CU_ASSERT_EQUAL(s->session_crc, vm_fw_crc32(all, 192));
    CU_ASSERT_EQUAL(s->activations, 2);
    /* a SEND_DATA asked with an operation id is answered (the spec wants none asked) */
    uint8_t p[8 + 192] = {0};
    CU_ASSERT_EQUAL(vmt_op(&t, 2, 9, GB_AUDIO_TYPE_SEND_DATA, p, sizeof p, NULL, NULL), 0);
    CU_ASSERT_EQUAL(vmt_op(&t, 2, 9, GB_AUDIO_TYPE_SEND_DATA, p, 100, NULL, NULL),
                    GB_OP_INVALID);
    CU_ASSERT_EQUAL(s->dropped_size, 1);
    vmt_down(&t);
}

static void test_audio_state_survives_a_disconnect_but_not_a_reboot(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, "[cport 1]\nspeaker-volume = 40 60\nspeaker-eq = Bass\n"));
    enable_tx(&t);
    CU_ASSERT_EQUAL(set_control(&t, 0, 0xff, 10, 20), 0);
    /* runtime suspend: the AP disables both connections, then enables them again */
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(t.intf, 2), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(t.intf, 1), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 1), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 2), 0);
    CU_ASSERT_TRUE(stream(&t)->tx_active);
    int32_t v[2];
    CU_ASSERT_EQUAL(get_control(&t, 0, 0xff, v), 0);
    CU_ASSERT_TRUE(v[0] == 10 && v[1] == 20);
    uint8_t samples[192] = {0};
    send_data(&t, 5, samples, sizeof samples);
    CU_ASSERT_EQUAL(stream(&t)->messages, 1);
    /* a module reboot: the behaviour's initial values, widgets off, stream defaults */
    CU_ASSERT_EQUAL(vm_interface_power(t.intf, VM_POWER_ACTIVATE), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 0), 0);
    CU_ASSERT_EQUAL(vm_interface_cport_connect(t.intf, 1), 0);
    CU_ASSERT_EQUAL(get_control(&t, 0, 0xff, v), 0);
    CU_ASSERT_TRUE(v[0] == 40 && v[1] == 60);
    CU_ASSERT_EQUAL(get_control(&t, 2, 0xff, v), 0);
    CU_ASSERT_EQUAL(v[0], 1);
    const vm_audio_stream *s = stream(&t);
    CU_ASSERT_TRUE(!s->tx_active && s->tx_size == 0 && s->pcm.channels == 2);
    CU_ASSERT_EQUAL(s->messages, 1); /* counters stay */
    vm_audio_widget_info wi;
    vm_audio_get_widget(module(&t), 0, &wi);
    CU_ASSERT_FALSE(wi.enabled);
    vmt_down(&t);
}

/* ---- bad requests ---- */

static void test_audio_malformed_requests_are_refused(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, NULL));
    static const uint8_t mgmt_types[] = {
        GB_AUDIO_TYPE_GET_TOPOLOGY_SIZE, GB_AUDIO_TYPE_GET_TOPOLOGY,
        GB_AUDIO_TYPE_GET_CONTROL,       GB_AUDIO_TYPE_SET_CONTROL,
        GB_AUDIO_TYPE_ENABLE_WIDGET,     GB_AUDIO_TYPE_DISABLE_WIDGET,
        GB_AUDIO_TYPE_GET_PCM,           GB_AUDIO_TYPE_SET_PCM,
        GB_AUDIO_TYPE_SET_TX_DATA_SIZE,  GB_AUDIO_TYPE_ACTIVATE_TX,
        GB_AUDIO_TYPE_DEACTIVATE_TX,     GB_AUDIO_TYPE_SET_RX_DATA_SIZE,
        GB_AUDIO_TYPE_ACTIVATE_RX,       GB_AUDIO_TYPE_DEACTIVATE_RX};
    static const size_t right_len[] = {0, 0, 2, 26, 1, 1, 2, 12, 4, 2, 2, 4, 2, 2};
    uint8_t p[64] = {0};
    p[0] = 2; /* data CPort 2 / control 2 / widget 2 */
    for (size_t i = 0; i < sizeof mgmt_types; i++) {
        /* one byte short and one byte long */
        if (right_len[i])
            CU_ASSERT_EQUAL(op(&t, mgmt_types[i], p, right_len[i] - 1, NULL, NULL),
                            GB_OP_INVALID);
        CU_ASSERT_EQUAL(op(&t, mgmt_types[i], p, right_len[i] + 1, NULL, NULL), GB_OP_INVALID);
    }
    /* types the AP does not send, or sends on the other CPort */
    static const uint8_t bad_types[] = {0x01, 0x0b, 0x0f, GB_AUDIO_TYPE_JACK_EVENT,
                                        GB_AUDIO_TYPE_BUTTON_EVENT,
                                        GB_AUDIO_TYPE_STREAMING_EVENT,
                                        GB_AUDIO_TYPE_SEND_DATA, 0x16, 0x7e};
    for (size_t i = 0; i < sizeof bad_types; i++) {
        CU_ASSERT_EQUAL(op(&t, bad_types[i], p, 3, NULL, NULL), GB_OP_PROTOCOL_BAD);
        if (bad_types[i] != GB_AUDIO_TYPE_SEND_DATA)
            CU_ASSERT_EQUAL(vmt_op(&t, 2, 5, bad_types[i], p, 3, NULL, NULL),
                            GB_OP_PROTOCOL_BAD);
    }
    CU_ASSERT_EQUAL(vmt_op(&t, 2, 5, GB_AUDIO_TYPE_GET_TOPOLOGY, NULL, 0, NULL, NULL),
                    GB_OP_PROTOCOL_BAD);
    vmt_down(&t);
}

static void test_audio_unknown_ids_and_out_of_range_values_are_invalid(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, NULL));
    int32_t v[2];
    CU_ASSERT_EQUAL(get_control(&t, 4, 0xff, v), GB_OP_INVALID);    /* no control 4 */
    CU_ASSERT_EQUAL(get_control(&t, 0xff, 0xff, v), GB_OP_INVALID);
    CU_ASSERT_EQUAL(get_control(&t, 0, 1, v), GB_OP_INVALID);       /* one element only */
    CU_ASSERT_EQUAL(get_control(&t, 0, 0xfe, v), GB_OP_INVALID);
    CU_ASSERT_EQUAL(set_control(&t, 0, 0xff, 101, 50), GB_OP_INVALID);
    CU_ASSERT_EQUAL(set_control(&t, 0, 0xff, 50, -1), GB_OP_INVALID); /* right channel */
    CU_ASSERT_EQUAL(set_control(&t, 1, 0xff, 2, 0), GB_OP_INVALID);   /* boolean */
    CU_ASSERT_EQUAL(set_control(&t, 2, 0xff, 4, 0), GB_OP_INVALID);   /* 4 items */
    CU_ASSERT_EQUAL(set_control(&t, 2, 0xff, -1, 0), GB_OP_INVALID);
    CU_ASSERT_EQUAL(set_control(&t, 3, 0xff, 7, 0), GB_OP_INVALID);
    CU_ASSERT_EQUAL(set_control(&t, 9, 0xff, 0, 0), GB_OP_INVALID);
    CU_ASSERT_EQUAL(get_control(&t, 0, 0xff, v), 0);                 /* nothing changed */
    CU_ASSERT_TRUE(v[0] == 80 && v[1] == 80);
    CU_ASSERT_EQUAL(widget(&t, true, 9), GB_OP_INVALID);
    CU_ASSERT_EQUAL(widget(&t, false, 0xff), GB_OP_INVALID);
    /* data CPorts: 1 is management, 3 does not exist */
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_GET_PCM, 1), GB_OP_INVALID);
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_ACTIVATE_TX, 3), GB_OP_INVALID);
    CU_ASSERT_EQUAL(set_pcm(&t, 0, GB_AUDIO_PCM_FMT_S16_LE, GB_AUDIO_PCM_RATE_48000, 2, 16),
                    GB_OP_INVALID);
    CU_ASSERT_EQUAL(data_size(&t, GB_AUDIO_TYPE_SET_TX_DATA_SIZE, 0xffff, 192), GB_OP_INVALID);
    /* PCM values the module does not take */
    uint32_t s16 = GB_AUDIO_PCM_FMT_S16_LE, r48 = GB_AUDIO_PCM_RATE_48000;
    CU_ASSERT_EQUAL(set_pcm(&t, 2, 0x40, r48, 2, 16), GB_OP_INVALID);       /* S24_LE */
    CU_ASSERT_EQUAL(set_pcm(&t, 2, s16 | 0x40, r48, 2, 16), GB_OP_INVALID); /* two formats */
    CU_ASSERT_EQUAL(set_pcm(&t, 2, s16, 0, 2, 16), GB_OP_INVALID);
    CU_ASSERT_EQUAL(set_pcm(&t, 2, s16, r48 | GB_AUDIO_PCM_RATE_44100, 2, 16), GB_OP_INVALID);
    CU_ASSERT_EQUAL(set_pcm(&t, 2, s16, 1u << 12, 2, 16), GB_OP_INVALID);   /* 192 kHz */
    CU_ASSERT_EQUAL(set_pcm(&t, 2, s16, r48, 0, 16), GB_OP_INVALID);
    CU_ASSERT_EQUAL(set_pcm(&t, 2, s16, r48, 3, 16), GB_OP_INVALID);
    CU_ASSERT_EQUAL(set_pcm(&t, 2, s16, r48, 2, 0), GB_OP_INVALID);
    CU_ASSERT_EQUAL(set_pcm(&t, 2, s16, r48, 2, 17), GB_OP_INVALID);
    CU_ASSERT_EQUAL(set_pcm(&t, 2, s16, GB_AUDIO_PCM_RATE_44100, 1, 12), 0);
    /* data sizes: whole frames of the PCM (mono: 2 bytes), at most 2032 */
    CU_ASSERT_EQUAL(data_size(&t, GB_AUDIO_TYPE_SET_TX_DATA_SIZE, 2, 0), GB_OP_INVALID);
    CU_ASSERT_EQUAL(data_size(&t, GB_AUDIO_TYPE_SET_TX_DATA_SIZE, 2, 191), GB_OP_INVALID);
    CU_ASSERT_EQUAL(data_size(&t, GB_AUDIO_TYPE_SET_RX_DATA_SIZE, 2, 2034), GB_OP_INVALID);
    CU_ASSERT_EQUAL(data_size(&t, GB_AUDIO_TYPE_SET_RX_DATA_SIZE, 2, 2032), 0);
    CU_ASSERT_EQUAL(data_size(&t, GB_AUDIO_TYPE_SET_TX_DATA_SIZE, 2, 6), 0);
    /* stereo now: 6 bytes is a frame and a half, so no activation */
    CU_ASSERT_EQUAL(set_pcm(&t, 2, s16, r48, 2, 16), 0);
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_ACTIVATE_TX, 2), GB_OP_INVALID);
    vmt_down(&t);
}

static void test_audio_activation_rules(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, NULL));
    uint8_t samples[200] = {1, 2, 3};
    send_data(&t, 1, samples, 192); /* before anything */
    CU_ASSERT_EQUAL(stream(&t)->dropped_inactive, 1);
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_ACTIVATE_TX, 2), GB_OP_INVALID); /* no size */
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_DEACTIVATE_TX, 2), GB_OP_INVALID);
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_DEACTIVATE_RX, 2), GB_OP_INVALID);
    enable_tx(&t);
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_ACTIVATE_TX, 2), GB_OP_INVALID); /* twice */
    CU_ASSERT_EQUAL(set_pcm(&t, 2, GB_AUDIO_PCM_FMT_S16_LE, GB_AUDIO_PCM_RATE_16000, 2, 16),
                    GB_OP_INVALID); /* while active */
    CU_ASSERT_EQUAL(data_size(&t, GB_AUDIO_TYPE_SET_TX_DATA_SIZE, 2, 96), GB_OP_INVALID);
    /* RX is separate: configurable while TX runs, but then no SET_PCM either */
    CU_ASSERT_EQUAL(data_size(&t, GB_AUDIO_TYPE_SET_RX_DATA_SIZE, 2, 96), 0);
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_ACTIVATE_RX, 2), 0);
    CU_ASSERT_TRUE(stream(&t)->rx_active && stream(&t)->rx_size == 96);
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_DEACTIVATE_TX, 2), 0);
    CU_ASSERT_EQUAL(set_pcm(&t, 2, GB_AUDIO_PCM_FMT_S16_LE, GB_AUDIO_PCM_RATE_16000, 2, 16),
                    GB_OP_INVALID); /* RX still active */
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_DEACTIVATE_RX, 2), 0);
    CU_ASSERT_EQUAL(set_pcm(&t, 2, GB_AUDIO_PCM_FMT_S16_LE, GB_AUDIO_PCM_RATE_16000, 2, 16), 0);
    /* SEND_DATA of another size than the TX data size, or without a timestamp */
    CU_ASSERT_EQUAL(on_cport(&t, GB_AUDIO_TYPE_ACTIVATE_TX, 2), 0);
    send_data(&t, 1, samples, 188);
    send_data(&t, 1, samples, 196);
    CU_ASSERT_EQUAL(vmt_request(&t, 2, 0, GB_AUDIO_TYPE_SEND_DATA, samples, 7), 0);
    CU_ASSERT_EQUAL(vmt_request(&t, 2, 0, GB_AUDIO_TYPE_SEND_DATA, NULL, 0), 0);
    const vm_audio_stream *s = stream(&t);
    CU_ASSERT_EQUAL(s->dropped_size, 4);
    CU_ASSERT_EQUAL(s->messages, 0);
    vm_audio_stats st;
    vm_audio_get_stats(module(&t), &st);
    CU_ASSERT_EQUAL(st.refused, 7);
    vmt_down(&t);
}

static void test_audio_data_cport_without_management_is_refused(void)
{
    static const char mnfs[] =
        "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
        "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"
        "[string-descriptor 1]\nstring = gbvp\n[string-descriptor 2]\nstring = x\n"
        "[bundle-descriptor 1]\nclass = 0x12\n"
        "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x13\n"
        "[bundle-descriptor 2]\nclass = 0x12\n"
        "[cport-descriptor 2]\nbundle = 2\nprotocol = 0x12\n"
        "[cport-descriptor 3]\nbundle = 2\nprotocol = 0x13\n";
    vmt t;
    const uint16_t cports[] = {1, 2, 3};
    CU_ASSERT_FATAL(vmt_up(&t, mnfs, NULL, cports, 3));
    uint8_t p[8 + 4] = {0};
    /* CPort 1's bundle has no management CPort; bundle 2's module does not own CPort 1 */
    CU_ASSERT_EQUAL(vmt_op(&t, 1, 3, GB_AUDIO_TYPE_SEND_DATA, p, sizeof p, NULL, NULL),
                    GB_OP_INVALID);
    vm_audio_data *d = vm_interface_handler(t.intf, 1, GB_PROTOCOL_AUDIO_DATA);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(vm_audio_data_orphaned(d), 1);
    CU_ASSERT_PTR_NULL(vm_interface_audio(t.intf, 1));
    vm_audio *a = vm_interface_audio(t.intf, 3); /* by its data CPort */
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(vm_audio_stream_count(a), 1);
    CU_ASSERT_EQUAL(vm_audio_get_stream(a, 0)->cport, 3);
    CU_ASSERT_PTR_NULL(vm_audio_find_stream(a, 1));
    uint8_t req[2];
    gb_put_le16(req, 1);
    CU_ASSERT_EQUAL(vmt_op(&t, 2, 4, GB_AUDIO_TYPE_GET_PCM, req, 2, NULL, NULL), GB_OP_INVALID);
    vmt_down(&t);
}

static void test_audio_bundle_with_too_many_data_cports_is_refused(void)
{
    char mnfs[2048];
    int n = snprintf(mnfs, sizeof mnfs,
                     "[manifest-header]\nversion-major = 0\nversion-minor = 1\n"
                     "[interface-descriptor]\nvendor-string-id = 1\nproduct-string-id = 2\n"
                     "[string-descriptor 1]\nstring = gbvp\n[string-descriptor 2]\nstring = x\n"
                     "[bundle-descriptor 1]\nclass = 0x12\n"
                     "[cport-descriptor 1]\nbundle = 1\nprotocol = 0x12\n");
    for (int c = 2; c <= 6; c++)
        n += snprintf(mnfs + n, sizeof mnfs - (size_t)n,
                      "[cport-descriptor %d]\nbundle = 1\nprotocol = 0x13\n", c);
    vmt t;
    CU_ASSERT_FALSE(vmt_up(&t, mnfs, NULL, NULL, 0));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "5 audio data CPorts; gbvp's module has at most 4"));
}

/* ---- guest-controlled input: random requests ---- */

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

/* A request of `type` with plausible fields (ids, CPorts, values near their ranges), so
 * that many succeed and many fail on one field only; its length. */
static size_t plausible_request(uint8_t type, uint8_t *p)
{
    static const uint8_t indexes[] = {0xff, 0, 1};
    switch (type) {
    case GB_AUDIO_TYPE_GET_TOPOLOGY_SIZE:
    case GB_AUDIO_TYPE_GET_TOPOLOGY:
        return 0;
    case GB_AUDIO_TYPE_GET_CONTROL:
    case GB_AUDIO_TYPE_SET_CONTROL:
        p[0] = (uint8_t)(rnd() % 5);
        p[1] = indexes[rnd() % 3];
        for (size_t k = 2; k < GB_AUDIO_SET_CONTROL_REQ_SIZE; k++)
            p[k] = (uint8_t)rnd();
        gb_put_le32(p + 10, rnd() % 110 - 5);
        gb_put_le32(p + 14, rnd() % 110 - 5);
        return type == GB_AUDIO_TYPE_GET_CONTROL ? 2 : GB_AUDIO_SET_CONTROL_REQ_SIZE;
    case GB_AUDIO_TYPE_ENABLE_WIDGET:
    case GB_AUDIO_TYPE_DISABLE_WIDGET:
        p[0] = (uint8_t)(rnd() % 5);
        return 1;
    case GB_AUDIO_TYPE_SET_PCM:
        gb_put_le16(p, (uint16_t)(rnd() % 4));
        gb_put_le32(p + 2, rnd() % 2 ? GB_AUDIO_PCM_FMT_S16_LE : 1u << (rnd() % 14));
        gb_put_le32(p + 6, rnd() % 2 ? GB_AUDIO_PCM_RATE_48000 : 1u << (rnd() % 14));
        p[10] = (uint8_t)(rnd() % 4 ? 1 + rnd() % 2 : rnd() % 4);
        p[11] = (uint8_t)(rnd() % 4 ? 16 : rnd() % 20);
        return GB_AUDIO_SET_PCM_REQ_SIZE;
    case GB_AUDIO_TYPE_SET_TX_DATA_SIZE:
    case GB_AUDIO_TYPE_SET_RX_DATA_SIZE:
        gb_put_le16(p, (uint16_t)(rnd() % 4));
        gb_put_le16(p + 2, (uint16_t)(rnd() % 2 ? 4 * (rnd() % 100) : rnd() % 3000));
        return 4;
    case GB_AUDIO_TYPE_GET_PCM:
    case GB_AUDIO_TYPE_ACTIVATE_TX:
    case GB_AUDIO_TYPE_DEACTIVATE_TX:
    case GB_AUDIO_TYPE_ACTIVATE_RX:
    case GB_AUDIO_TYPE_DEACTIVATE_RX:
        gb_put_le16(p, (uint16_t)(rnd() % 4));
        return 2;
    case GB_AUDIO_TYPE_SEND_DATA: {
        size_t n = 8 + (rnd() % 2 ? 192 : 4 * (rnd() % 60));
        for (size_t k = 0; k < n; k++)
            p[k] = (uint8_t)rnd();
        return n;
    }
    }
    return 0;
}

/* Random requests on both CPorts, mostly of the audio types with plausible fields: each
 * request with an id gets exactly one response, errors carry no payload, successes the
 * sizes 6.1 expects; the module's state stays within its ranges. */
static void test_audio_random_requests_keep_the_response_rules(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, "[cport 1]\njack = headset\n"));
    static uint8_t p[GB_MSG_MAX_PAYLOAD], o[GB_MSG_MAX_PAYLOAD];
    unsigned ok = 0;
    for (unsigned i = 0; i < 20000; i++) {
        bool data = rnd() % 4 == 0;
        uint16_t cport = data ? 2 : 1;
        uint8_t type = (uint8_t)(rnd() % 8 == 0 ? rnd() % 0x80 : 2 + rnd() % 20);
        if (data && rnd() % 2)
            type = GB_AUDIO_TYPE_SEND_DATA;
        size_t len = plausible_request(type, p);
        if (rnd() % 4 == 0) { /* anything at all */
            len = rnd() % 300;
            for (size_t k = 0; k < len; k++)
                p[k] = (uint8_t)(rnd() % 3 ? rnd() % 5 : rnd());
        }
        uint16_t id = (uint16_t)(rnd() % 3 == 0 ? 0 : 1 + rnd() % 60000);
        t.sink.n = 0;
        size_t sent = vmt_request(&t, cport, id, type, p, len);
        if (id == 0) {
            CU_ASSERT_EQUAL(sent, 0);
            continue;
        }
        CU_ASSERT_EQUAL_FATAL(sent, 1);
        gb_msg_header h;
        CU_ASSERT_EQUAL_FATAL(gb_msg_header_decode(t.sink.msg[0], t.sink.len[0], &h), 0);
        CU_ASSERT_EQUAL(h.operation_id, id);
        CU_ASSERT_EQUAL(h.type, type | 0x80);
        CU_ASSERT_TRUE(h.result == GB_OP_SUCCESS || h.result == GB_OP_INVALID ||
                       h.result == GB_OP_PROTOCOL_BAD);
        size_t n = h.size - GB_MSG_HEADER_SIZE;
        memcpy(o, t.sink.msg[0] + GB_MSG_HEADER_SIZE, n);
        if (h.result != GB_OP_SUCCESS) {
            CU_ASSERT_EQUAL(n, 0);
            continue;
        }
        ok++;
        size_t want = type == GB_AUDIO_TYPE_GET_CONTROL         ? GB_AUDIO_CTL_ELEM_VALUE_SIZE
                      : type == GB_AUDIO_TYPE_GET_PCM           ? GB_AUDIO_PCM_SIZE
                      : type == GB_AUDIO_TYPE_GET_TOPOLOGY_SIZE ? 2
                      : type == GB_AUDIO_TYPE_GET_TOPOLOGY      ? n
                                                                : 0;
        CU_ASSERT_EQUAL(n, want);
        if (rnd() % 64 == 0) { /* the jack, as a script would use it */
            vm_reply r;
            command(&t, rnd() % 2 ? "audio jack insert" : "audio button press 2", &r);
        }
    }
    CU_ASSERT_TRUE(ok > 1000);
    /* whatever happened, the values are ones the controls can hold */
    vm_audio *a = module(&t);
    for (size_t i = 0; i < vm_audio_control_count(a); i++) {
        vm_audio_control_info ci;
        vm_audio_get_control(a, i, &ci);
        int32_t max = ci.type == GB_AUDIO_CTL_ELEM_TYPE_INTEGER      ? 100
                      : ci.type == GB_AUDIO_CTL_ELEM_TYPE_ENUMERATED ? 3
                                                                     : 1;
        for (unsigned k = 0; k < ci.count_values; k++)
            CU_ASSERT_TRUE(ci.value[k] >= 0 && ci.value[k] <= max);
    }
    const vm_audio_stream *s = stream(&t);
    CU_ASSERT_TRUE(s->pcm.channels >= 1 && s->pcm.channels <= 2);
    CU_ASSERT_TRUE(s->tx_size <= VM_AUDIO_DATA_SIZE_MAX && s->rx_size <= VM_AUDIO_DATA_SIZE_MAX);
    vmt_down(&t);
}

/* ---- backend commands ---- */

static void test_audio_state_and_stats_commands(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, NULL));
    static vm_reply r;
    CU_ASSERT_EQUAL(command(&t, "audio state", &r), 0);
    CU_ASSERT_STRING_EQUAL(r.text,
                           "cport 2 s16_le 48000 Hz 2 ch 16 bits tx 0 off rx 0 off; controls "
                           "Speaker Volume 80 80, Speaker Mute 0 0, Speaker EQ Flat, Speaker "
                           "Switch 1; widgets Speaker AIF off, Speaker Amp off, Speaker off; "
                           "jack none");
    enable_tx(&t);
    CU_ASSERT_EQUAL(widget(&t, true, 1), 0);
    CU_ASSERT_EQUAL(set_control(&t, 0, 0xff, 25, 75), 0);
    CU_ASSERT_EQUAL(set_control(&t, 2, 0xff, 3, INT32_MIN), 0);
    uint8_t samples[192];
    memset(samples, 0x10, sizeof samples);
    send_data(&t, 777, samples, sizeof samples);
    send_data(&t, 778, samples, sizeof samples);
    CU_ASSERT_EQUAL(command(&t, "audio state", &r), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "tx 192 on"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "Speaker Volume 25 75"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "Speaker EQ Voice"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "Speaker AIF on, Speaker Amp on, Speaker off"));
    CU_ASSERT_EQUAL(reply_int(&r, "data_cport"), 2);
    CU_ASSERT_EQUAL(reply_int(&r, "rate"), 48000);
    CU_ASSERT_EQUAL(reply_int(&r, "channels"), 2);
    CU_ASSERT_EQUAL(reply_int(&r, "sig_bits"), 16);
    CU_ASSERT_EQUAL(reply_int(&r, "tx_size"), 192);
    CU_ASSERT_EQUAL(reply_int(&r, "tx_active"), 1);
    CU_ASSERT_EQUAL(reply_int(&r, "rx_active"), 0);
    CU_ASSERT_EQUAL(reply_int(&r, "speaker_volume_left"), 25);
    CU_ASSERT_EQUAL(reply_int(&r, "speaker_volume_right"), 75);
    CU_ASSERT_EQUAL(reply_int(&r, "speaker_mute_left"), 0);
    CU_ASSERT_EQUAL(reply_int(&r, "speaker_eq"), 3);
    CU_ASSERT_EQUAL(reply_int(&r, "speaker_switch"), 1);
    CU_ASSERT_EQUAL(reply_int(&r, "speaker_aif_on"), 1);
    CU_ASSERT_EQUAL(reply_int(&r, "speaker_on"), 0);
    CU_ASSERT_EQUAL(reply_int(&r, "messages"), 2);
    CU_ASSERT_EQUAL(reply_int(&r, "bytes"), 384);
    const vm_value *fmt = vm_reply_get(&r, "format");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fmt);
    CU_ASSERT_EQUAL(fmt->len, 6);
    CU_ASSERT_EQUAL(memcmp(vm_reply_data(&r, fmt), "s16_le", 6), 0);
    CU_ASSERT_PTR_NULL(vm_reply_get(&r, "jack"));

    CU_ASSERT_EQUAL(command(&t, "audio stats", &r), 0);
    char want[160];
    uint8_t both[384];
    memset(both, 0x10, sizeof both);
    snprintf(want, sizeof want, "cport 2 messages 2 bytes 384 frames 96 dropped-inactive 0 "
             "dropped-size 0 timestamp 778 activations 1 session 384 bytes crc 0x%08x peak 4112",
             vm_fw_crc32(both, sizeof both));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "control-sets 2 widget-enables 2"));
    CU_ASSERT_EQUAL(reply_int(&r, "frames"), 96);
    CU_ASSERT_EQUAL(reply_int(&r, "peak"), 0x1010);
    CU_ASSERT_EQUAL(reply_int(&r, "timestamp"), 778);
    CU_ASSERT_EQUAL(reply_int(&r, "widget_enables"), 2);
    CU_ASSERT_EQUAL(reply_int(&r, "refused"), 0);
    /* by CPort: the management CPort or a data CPort names the module */
    CU_ASSERT_EQUAL(command(&t, "audio@2 state", &r), 0);
    CU_ASSERT_EQUAL(command(&t, "audio@1 stats", &r), 0);
    CU_ASSERT_EQUAL(command(&t, "audio@3 state", &r), VM_BACKEND_NO_CLASS);
    CU_ASSERT_EQUAL(command(&t, "audio state now", &r), -1);
    CU_ASSERT_EQUAL(command(&t, "audio play", &r), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "audio: expected state, stats"));
    CU_ASSERT_EQUAL(command(&t, "audio jack insert", &r), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "no jack (jack = headset"));
    vmt_down(&t);
}

static void test_audio_jack_and_button_events_reach_the_ap(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, "[cport 1]\njack = headset\n"));
    static vm_reply r;
    t.sink.n = 0;
    CU_ASSERT_EQUAL(command(&t, "audio jack insert", &r), 0);
    CU_ASSERT_EQUAL_FATAL(t.sink.n, 1);
    gb_msg_header h;
    CU_ASSERT_EQUAL_FATAL(gb_msg_header_decode(t.sink.msg[0], t.sink.len[0], &h), 0);
    CU_ASSERT_EQUAL(t.sink.cport[0], 1);
    CU_ASSERT_EQUAL(h.type, GB_AUDIO_TYPE_JACK_EVENT);
    CU_ASSERT_NOT_EQUAL(h.operation_id, 0); /* gbaudio_codec_request_handler answers it */
    CU_ASSERT_EQUAL(h.size, GB_MSG_HEADER_SIZE + 3);
    const uint8_t *ev = t.sink.msg[0] + GB_MSG_HEADER_SIZE;
    CU_ASSERT_TRUE(ev[0] == 3 && ev[1] == GB_AUDIO_JACK_HEADSET &&
                   ev[2] == GB_AUDIO_JACK_EVENT_INSERTION);
    /* the AP answers: fine */
    uint8_t resp[GB_MSG_HEADER_SIZE];
    gb_msg_build(resp, sizeof resp, h.operation_id, GB_AUDIO_TYPE_JACK_EVENT | 0x80, 0, NULL, 0);
    CU_ASSERT_EQUAL(vmt_receive(&t, 1, resp, sizeof resp, 0), 0);
    CU_ASSERT_EQUAL(command(&t, "audio jack insert", &r), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "already in"));
    CU_ASSERT_EQUAL(command(&t, "audio state", &r), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "jack in"));
    CU_ASSERT_EQUAL(reply_int(&r, "jack"), 1);
    CU_ASSERT_EQUAL(reply_int(&r, "headset_jack_on"), 0);
    /* a button: 6.1 refuses it (no button jack), the refusal is counted */
    t.sink.n = 0;
    CU_ASSERT_EQUAL(command(&t, "audio button press 2", &r), 0);
    CU_ASSERT_EQUAL_FATAL(t.sink.n, 1);
    CU_ASSERT_EQUAL_FATAL(gb_msg_header_decode(t.sink.msg[0], t.sink.len[0], &h), 0);
    CU_ASSERT_EQUAL(h.type, GB_AUDIO_TYPE_BUTTON_EVENT);
    ev = t.sink.msg[0] + GB_MSG_HEADER_SIZE;
    CU_ASSERT_TRUE(ev[0] == 3 && ev[1] == 2 && ev[2] == GB_AUDIO_BUTTON_EVENT_PRESS);
    gb_msg_build(resp, sizeof resp, h.operation_id, GB_AUDIO_TYPE_BUTTON_EVENT | 0x80,
                 GB_OP_INVALID, NULL, 0);
    CU_ASSERT_EQUAL(vmt_receive(&t, 1, resp, sizeof resp, 0), 0);
    CU_ASSERT_EQUAL(command(&t, "audio button release", &r), 0); /* button 1 */
    CU_ASSERT_EQUAL(command(&t, "audio button press 5", &r), -1);
    CU_ASSERT_EQUAL(command(&t, "audio button hold", &r), -1);
    CU_ASSERT_EQUAL(command(&t, "audio jack", &r), -1);
    /* not connected: the jack comes out, the event is lost */
    CU_ASSERT_EQUAL(vm_interface_cport_disconnect(t.intf, 1), 0);
    CU_ASSERT_EQUAL(command(&t, "audio jack remove", &r), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "event lost"));
    CU_ASSERT_FALSE(vm_audio_jack_inserted(module(&t)));
    CU_ASSERT_EQUAL(command(&t, "audio stats", &r), 0);
    CU_ASSERT_EQUAL(reply_int(&r, "events_sent"), 3);
    CU_ASSERT_EQUAL(reply_int(&r, "events_refused"), 1);
    CU_ASSERT_EQUAL(reply_int(&r, "events_lost"), 1);
    CU_ASSERT_EQUAL(vm_audio_button(module(&t), 0, true), -EINVAL);
    vmt_down(&t);
}

/* ---- behaviour ---- */

static void test_audio_behaviour_sets_initial_values_and_names_bad_lines(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, "[cport 1]\nspeaker-volume = 5\nspeaker-mute = yes\n"
                           "speaker-switch = no\nspeaker-eq = Voice\n"));
    int32_t v[2];
    CU_ASSERT_EQUAL(get_control(&t, 0, 0xff, v), 0);
    CU_ASSERT_TRUE(v[0] == 5 && v[1] == 5);
    CU_ASSERT_EQUAL(get_control(&t, 1, 0xff, v), 0);
    CU_ASSERT_TRUE(v[0] == 1 && v[1] == 1);
    CU_ASSERT_EQUAL(get_control(&t, 2, 0xff, v), 0);
    CU_ASSERT_EQUAL(v[0], 3);
    CU_ASSERT_EQUAL(get_control(&t, 3, 0xff, v), 0);
    CU_ASSERT_EQUAL(v[0], 0);
    CU_ASSERT_FALSE(vm_audio_has_jack(module(&t)));
    vmt_down(&t);
    CU_ASSERT_FALSE(up(&t, "[cport 1]\nspeaker-volume = 101\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:2: speaker-volume: '101'"));
    CU_ASSERT_FALSE(up(&t, "[cport 1]\nspeaker-volume = 1 2 3\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "speaker-volume: more than 2 values"));
    CU_ASSERT_FALSE(up(&t, "[cport 1]\n\nspeaker-eq = bass\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:3: speaker-eq: 'bass' is not one of: "
                                         "Flat, Bass, Treble, Voice"));
    CU_ASSERT_FALSE(up(&t, "[cport 1]\nspeaker-mute = on\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "speaker-mute: 'on' is not one of: no, yes"));
    CU_ASSERT_FALSE(up(&t, "[cport 1]\njack = yes\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "jack: 'yes' is not one of: none, headset"));
    CU_ASSERT_FALSE(up(&t, "[cport 1]\nvolume = 3\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "volume"));
    CU_ASSERT_FALSE(up(&t, "[cport 2]\nspeaker-volume = 3\n")); /* the data CPort: no keys */
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:2"));
}

static void test_audio_catalog_speaker_is_one_audio_bundle(void)
{
    vmt t;
    CU_ASSERT_FATAL(up(&t, NULL));
    char buf[512];
    vm_interface_describe(t.intf, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "cport 1 protocol 0x12 audio management, speaker, "
                                       "1 data CPort (connected)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "cport 2 protocol 0x13 audio-data (connected)"));
    vmt_down(&t);
}

const unit_test vmt_audio_tests[] = {
    UNIT_TEST(test_audio_topology_parses_as_6_1_parses_it),
    UNIT_TEST(test_audio_topology_with_a_jack_adds_the_widget_and_jack_type),
    UNIT_TEST(test_audio_topology_walk_catches_layout_mistakes),
    UNIT_TEST(test_audio_topology_builder_refuses_what_6_1_cannot_parse),
    UNIT_TEST(test_audio_controls_read_and_write_as_the_alsa_callbacks_do),
    UNIT_TEST(test_audio_widgets_follow_enable_and_disable),
    UNIT_TEST(test_audio_playback_sequence_counts_and_checks_the_samples),
    UNIT_TEST(test_audio_state_survives_a_disconnect_but_not_a_reboot),
    UNIT_TEST(test_audio_malformed_requests_are_refused),
    UNIT_TEST(test_audio_unknown_ids_and_out_of_range_values_are_invalid),
    UNIT_TEST(test_audio_activation_rules),
    UNIT_TEST(test_audio_data_cport_without_management_is_refused),
    UNIT_TEST(test_audio_bundle_with_too_many_data_cports_is_refused),
    UNIT_TEST(test_audio_random_requests_keep_the_response_rules),
    UNIT_TEST(test_audio_state_and_stats_commands),
    UNIT_TEST(test_audio_jack_and_button_events_reach_the_ap),
    UNIT_TEST(test_audio_behaviour_sets_initial_values_and_names_bad_lines),
    UNIT_TEST(test_audio_catalog_speaker_is_one_audio_bundle),
    UNIT_TEST(test_audio_catalog_topology_has_no_controls_for_6_1),
    UNIT_TESTS_END,
};

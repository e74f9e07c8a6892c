#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Wireshark dissector tools/wireshark/greybus.lua against captures written by
# make_pcap.py in the format of docs/tracing.md: every packet decodes, with no Lua error;
# Malformed and other expert infos appear only where the capture is wrong on purpose; the
# Info column, names and field values are right; responses pair with their requests; random
# messages never break the dissector. Prints "wireshark: N passed, N failed"; skips (0 and
# 0) only when tshark is not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
lua=$(cd "$here/../.." && pwd)/tools/wireshark/greybus.lua

if ! command -v tshark >/dev/null 2>&1; then
    echo "wireshark: 0 passed, 0 failed (tshark not installed)"
    exit 0
fi

passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() {
    local msg="$*"
    [ "${#msg}" -gt 400 ] && msg="${msg:0:400}..."
    failed=$((failed + 1))
    echo "wireshark: FAIL - $msg"
}
finish() {
    echo "wireshark: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# tshark with the dissector; its stderr is kept (less the root warning) to be checked
ts() {
    local rc
    tshark -n -X "lua_script:$lua" "$@" 2>"$tmp/err1"
    rc=$?
    grep -v '^Running as user' "$tmp/err1" >>"$tmp/stderr"
    [ "$rc" -eq 0 ] || echo "tshark $* exited with $rc" >>"$tmp/stderr"
    return "$rc"
}

if ! python3 "$here/make_pcap.py" main "$tmp/main.pcapng" "$tmp/marks.sh"; then
    bad "make_pcap.py main failed"
    finish
fi
# FRAMES, N_conn_create and F_<name>=<frame number> of the packets checked below
. "$tmp/marks.sh"
cap=$tmp/main.pcapng

# --- one two-pass run for the fields, one for the whole tree ---
FIELDS=(frame.number _ws.col.Protocol _ws.col.Info gbvp.dir gbvp.dropped gbvp.verdict
        gbvp.src_port gbvp.dst_port gbvp.latency_ps greybus.size greybus.op_id greybus.type
        greybus.response greybus.result greybus.protocol greybus.type_name greybus.intf
        greybus.cport greybus.request_in greybus.response_in greybus.response_time
        greybus.svc.intf1_id greybus.svc.cport1_id greybus.svc.intf2_id greybus.svc.cport2_id
        greybus.svc.conn_flags greybus.svc.dme_value greybus.svc.attr
        greybus.manifest.cport_id greybus.manifest.cport_protocol greybus.manifest.string
        greybus.gpio.which greybus.gpio.value greybus.i2c.addr greybus.i2c.size
        greybus.i2c.write_data greybus.i2c.read_data greybus.spi.read_data greybus.psy.value
        greybus.log.msg greybus.payload)
declare -A col
args=()
for i in "${!FIELDS[@]}"; do
    col[${FIELDS[$i]}]=$((i + 1))
    args+=(-e "${FIELDS[$i]}")
done
ts -2 -r "$cap" -T fields -E separator=/t -E occurrence=a -E aggregator=, "${args[@]}" \
    >"$tmp/fields.tsv"
ts -2 -r "$cap" -V >"$tmp/verbose.txt"

# value of a field in a frame of fields.tsv
value() { awk -F'\t' -v f="$1" -v c="${col[$2]}" '$1 == f { print $c }' "$tmp/fields.tsv"; }
# check_field WHAT FRAME FIELD EXPECTED
check_field() {
    local v
    v=$(value "$2" "$3")
    [ "$v" = "$4" ] && ok || bad "$1: frame $2 $3 is '$v', expected '$4'"
}
# frames matching a display filter, comma-separated
frames() { ts "${@:3}" -r "$1" -Y "$2" -T fields -e frame.number | paste -sd, -; }
# check_frames WHAT FILTER EXPECTED [tshark options]
check_frames() {
    local v
    v=$(frames "$cap" "$2" "${@:4}")
    [ "$v" = "$3" ] && ok || bad "$1: '$2' matches frames '$v', expected '$3'"
}

# --- every packet decodes ---
n=$(awk -F'\t' 'END { print NR }' "$tmp/fields.tsv")
[ "$n" -eq "$FRAMES" ] && ok || bad "tshark shows $n packets of $FRAMES"
check_frames "every packet is a gbvp record" "!gbvp" ""
check_frames "every packet holds a Greybus message" "!greybus" ""
check_frames "every packet has an operation name, but on unknown CPorts and types" \
    "!greybus.type_name && !(greybus.protocol == 0x06 || greybus.protocol == 0x13 ||
                             greybus.protocol == 0xff)" \
    "$F_unknown_cport_req,$((F_unknown_cport_req + 1)),$F_dropped,$F_malformed"
others=$(awk -F'\t' -v c="${col[_ws.col.Protocol]}" '$c != "Greybus"' "$tmp/fields.tsv" | wc -l)
[ "$others" -eq 0 ] && ok || bad "$others packet(s) without 'Greybus' in the protocol column"
n=$(grep -c 'Lua Error' "$tmp/verbose.txt")
[ "$n" -eq 0 ] && ok || bad "$n Lua error(s): $(grep -m3 'Lua Error' "$tmp/verbose.txt")"
# _ws.malformed: an exception, or an expert info of the Malformed group
check_frames "Malformed only on the malformed packet" "_ws.malformed" "$F_malformed"
n=$(grep -c 'Malformed Packet\|Dissector bug' "$tmp/verbose.txt")
[ "$n" -eq 0 ] && ok || bad "$n malformed packet / dissector bug line(s)"

# --- expert infos only where the capture is wrong on purpose ---
check_frames "Malformed-group expert infos only on the malformed packet" \
    "_ws.expert.group == 0x07000000" "$F_malformed"
check_frames "size disagreeing with the record length" "greybus.size_mismatch" "$F_malformed"
check_frames "unknown operation type" "greybus.unknown_type" "$F_malformed"
check_frames "no payload shorter or longer than its layout" \
    "greybus.payload_short || greybus.payload_long || greybus.manifest_error" ""
check_frames "non-success result flagged" "greybus.result_error" "$F_gpio_invalid_resp"
check_frames "unknown CPorts noted (interface 3 is removed before the dropped packet)" \
    "greybus.unknown_connection" \
    "$F_unknown_cport_req,$((F_unknown_cport_req + 1)),$F_dropped"
check_frames "dropped packet flagged" "gbvp.dropped_message" "$F_dropped"
check_frames "every response has its request" "greybus.no_request" ""
check_frames "every request with an id has its response, but the malformed one" \
    "greybus.response == 0 && greybus.op_id != 0 && !greybus.response_in && gbvp.dropped == 0" \
    "$F_malformed" -2
check_frames "bundle status BUSY noted" "greybus.status_error" \
    "$(frames "$cap" 'greybus.control.bundle_status == 2')"

# --- Info column ---
check_field "Info" "$F_gpio_get_value_req" _ws.col.Info "AP→intf 2 cport 1 GPIO GET_VALUE request"
check_field "Info" "$F_gpio_get_value_resp" _ws.col.Info \
    "intf 2 cport 1→AP GPIO GET_VALUE response (success)"
check_field "Info" "$F_gpio_invalid_resp" _ws.col.Info \
    "intf 2 cport 1→AP GPIO GET_VALUE response (invalid)"
check_field "Info" "$F_gpio_irq_req" _ws.col.Info "intf 2 cport 1→AP GPIO IRQ_EVENT request"
check_field "Info" "$F_svc_version_req" _ws.col.Info "SVC→AP SVC PROTOCOL_VERSION request"
check_field "Info" "$F_conn_create_gpio" _ws.col.Info \
    "AP→SVC SVC CONN_CREATE request [1:2 ↔ 2:1]"
check_field "Info" "$F_manifest2_resp" _ws.col.Info \
    "intf 2 cport 0→AP Control GET_MANIFEST response (success) [2 CPort(s)]"
check_field "Info" "$F_i2c_transfer_req" _ws.col.Info "AP→intf 2 cport 2 I2C TRANSFER request"
check_field "Info" "$F_mode_switch" _ws.col.Info \
    "AP→intf 2 cport 0 Control MODE_SWITCH request (unidirectional)"
check_field "Info" "$F_unknown_cport_req" _ws.col.Info \
    "AP→intf 2 cport 7 unknown protocol type 0x02 request"
check_field "Info" "$F_malformed" _ws.col.Info "AP→intf 2 cport 1 GPIO type 0x33 request"
check_field "Info" "$F_i2i_req" _ws.col.Info \
    "intf 2 cport 1→intf 3 cport 3 GPIO GET_VALUE request"
check_field "Info" "$F_i2i_resp" _ws.col.Info \
    "intf 3 cport 3→intf 2 cport 1 GPIO GET_VALUE response (success)"
case $(value "$F_dropped" _ws.col.Info) in
    "[dropped: no connection] AP→intf 3 cport 5 "*) ok ;;
    *) bad "Info of the dropped packet: '$(value "$F_dropped" _ws.col.Info)'" ;;
esac

# --- names and values ---
get_values="$F_gpio_get_value_req,$F_gpio_get_value_resp,$((F_gpio_invalid_resp - 1))"
get_values+=",$F_gpio_invalid_resp,$F_i2i_req,$F_i2i_resp"
check_frames "filter on type and protocol" "greybus.protocol == 0x02 && greybus.type == 0x08" \
    "$get_values"
n=$(frames "$cap" 'greybus.type_name == "CONN_CREATE" && greybus.response == 0' | tr ',' '\n' |
    grep -c .)
[ "$n" -eq "$N_conn_create" ] && ok ||
    bad "$n CONN_CREATE requests by name, expected $N_conn_create"
check_field "record direction" "$F_svc_version_req" gbvp.dir 3
check_field "record direction" "$F_gpio_irq_req" gbvp.dir 1
check_field "record latency" "$F_gpio_get_value_req" gbvp.latency_ps 1500000
check_field "dropped flag" "$F_dropped" gbvp.dropped 1
check_field "verdict" "$F_dropped" gbvp.verdict 1
check_field "destination port unknown" "$F_dropped" gbvp.dst_port 255
check_field "size" "$F_malformed" greybus.size 20
check_field "result" "$F_gpio_invalid_resp" greybus.result 0x06
check_field "response flag" "$F_gpio_get_value_resp" greybus.response 1
check_field "type without the response bit" "$F_gpio_get_value_resp" greybus.type 0x08
check_field "type name" "$F_gpio_get_value_resp" greybus.type_name GET_VALUE
check_field "protocol from the manifest" "$F_i2c_transfer_req" greybus.protocol 0x03
check_field "protocol of CPort 0" "$F_manifest2_req" greybus.protocol 0x00
check_field "protocol of the SVC connection" "$F_svc_hello_req" greybus.protocol 0x14
check_field "interface end" "$F_gpio_irq_req" greybus.intf 2
check_field "interface CPort" "$F_gpio_irq_req" greybus.cport 1
check_field "CONN_CREATE" "$F_conn_create_gpio" greybus.svc.intf1_id 1
check_field "CONN_CREATE" "$F_conn_create_gpio" greybus.svc.cport1_id 2
check_field "CONN_CREATE" "$F_conn_create_gpio" greybus.svc.intf2_id 2
check_field "CONN_CREATE" "$F_conn_create_gpio" greybus.svc.cport2_id 1
check_field "CONN_CREATE" "$F_conn_create_gpio" greybus.svc.conn_flags 0x07
check_field "DME attribute" "$F_dme_get_req" greybus.svc.attr 0x5003
check_field "DME value" "$F_dme_get_resp" greybus.svc.dme_value 0x00000126
check_field "manifest CPorts" "$F_manifest2_resp" greybus.manifest.cport_id 1,2
check_field "manifest protocols" "$F_manifest2_resp" greybus.manifest.cport_protocol 0x02,0x03
check_field "manifest strings" "$F_manifest2_resp" greybus.manifest.string \
    "Project Ara,GPIO and I2C"
check_field "GPIO line" "$F_gpio_get_value_req" greybus.gpio.which 0
check_field "GPIO value" "$F_gpio_get_value_resp" greybus.gpio.value 1
check_field "GPIO IRQ line" "$F_gpio_irq_req" greybus.gpio.which 0
check_field "I2C ops" "$F_i2c_transfer_req" greybus.i2c.addr 0x0050,0x0050
check_field "I2C ops" "$F_i2c_transfer_req" greybus.i2c.size 1,4
check_field "I2C write data" "$F_i2c_transfer_req" greybus.i2c.write_data 10
check_field "I2C read data" "$F_i2c_transfer_resp" greybus.i2c.read_data deadbeef
check_field "SPI read data" "$F_spi_transfer_resp" greybus.spi.read_data a55a
check_field "power supply value" "$F_psy_get_property_resp" greybus.psy.value 80
check_field "log message" "$F_log_req" greybus.log.msg "gbvp: hello from the log"
check_field "payload of an unknown CPort" "$F_unknown_cport_req" greybus.payload 0102
grep -q 'Value: 1 (line 0)' "$tmp/verbose.txt" && ok || bad "GET_VALUE response names its line"
grep -q 'Value: 80 (capacity)' "$tmp/verbose.txt" && ok || bad "GET_PROPERTY names its property"
grep -q 'Value: 0x00000126 (DDBL1 ManufacturerID)' "$tmp/verbose.txt" && ok ||
    bad "DME_PEER_GET response names its attribute"

# --- pairing ---
check_field "request in" "$F_gpio_get_value_resp" greybus.request_in "$F_gpio_get_value_req"
check_field "response in" "$F_gpio_get_value_req" greybus.response_in "$F_gpio_get_value_resp"
check_field "response time" "$F_gpio_get_value_resp" greybus.response_time 0.000080000
check_field "module request paired" "$F_gpio_irq_resp" greybus.request_in "$F_gpio_irq_req"
check_field "SVC request paired" "$F_svc_version_resp" greybus.request_in "$F_svc_version_req"
check_field "SVC response in" "$F_svc_version_req" greybus.response_in "$F_svc_version_resp"
check_field "interface to interface paired" "$F_i2i_resp" greybus.request_in "$F_i2i_req"
check_field "unidirectional request" "$F_mode_switch" greybus.response_in ""
# one pass (plain tshark): responses still find their requests
check_frames "one pass: request in" "greybus.request_in == $F_i2c_transfer_req" \
    "$F_i2c_transfer_resp"

# --- random messages never break the dissector ---
for seed in 1 2 3; do
    f=$tmp/fuzz$seed.pcapng
    if ! python3 "$here/make_pcap.py" fuzz "$f" "$seed"; then
        bad "make_pcap.py fuzz $seed failed"
        continue
    fi
    ts -2 -r "$f" -V >"$tmp/fuzz.txt"
    errors='Lua Error\|Malformed Packet\|Dissector bug'
    n=$(grep -c "$errors" "$tmp/fuzz.txt")
    [ "$n" -eq 0 ] && ok ||
        bad "fuzz seed $seed: $n error line(s): $(grep -m3 "$errors" "$tmp/fuzz.txt")"
    v=$(frames "$f" '!gbvp')
    [ -z "$v" ] && ok || bad "fuzz seed $seed: frames without gbvp: $v"
done

# --- malformations found only in the layout: each flagged, with the reason ---
if python3 "$here/make_pcap.py" broken "$tmp/broken.pcapng" "$tmp/broken.sh"; then
    . "$tmp/broken.sh"
    # check_expert WHAT FRAME MESSAGE: the frame's expert infos include MESSAGE
    check_expert() {
        local v
        v=$(ts -2 -r "$tmp/broken.pcapng" -Y "frame.number == $2" -T fields \
            -e _ws.expert.message -E occurrence=a -E aggregator='|')
        case "|$v|" in
            *"|$3|"*) ok ;;
            *) bad "$1: frame $2 expert infos are '$v', expected '$3'" ;;
        esac
    }
    check_expert "descriptor size 0" "$F_mf_size0" \
        "Descriptor size 0 is smaller than its 4-byte header"
    check_expert "string descriptor without its padding" "$F_mf_string_unpadded" \
        "String descriptor of 6 bytes, the kernel needs 8 (6 + length, padded to 4)"
    check_expert "frame record longer than 24 bytes" "$F_dl_long" \
        "Frame record of 26 bytes, it is 24"
    ts -2 -r "$tmp/broken.pcapng" -V >"$tmp/broken.txt"
    errors='Lua Error\|Dissector bug'
    n=$(grep -c "$errors" "$tmp/broken.txt")
    [ "$n" -eq 0 ] && ok || bad "broken capture: $(grep -m3 "$errors" "$tmp/broken.txt")"
else
    bad "make_pcap.py broken failed"
fi

# --- nothing on stderr (a Lua error when loading the script shows there) ---
if [ -s "$tmp/stderr" ]; then
    bad "tshark wrote to stderr: $(head -5 "$tmp/stderr")"
else
    ok
fi
finish

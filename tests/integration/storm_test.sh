#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The real 6.1 kernel under a hot-plug storm: random insert/remove cycles through the
# simulator's control socket (gbvp ctl), random slots and catalog modules, each removal at a
# random point (at once, during enumeration, or after the drivers bound), while the guest
# keeps traffic running on whatever devices exist (storm_traffic.sh: loopback transfers, power
# supply reads, LEDs, the EEPROM over i2c-dev, the vibrator, ttyGB writes). Checks, during the
# run and after: no oops, WARN, BUG, refcount or list corruption in the kernel log; the
# simulator and QEMU alive; at each checkpoint (cycle 100, every 250 after, the end) every
# module removed leaves the guest's Greybus and gbphy devices, class devices and /dev nodes
# as they were at boot, the simulator with no connection, pending event or extra open file;
# the simulator's resident size sampled there grows under 1 MiB from cycle 100 to the end
# (runs of 200 cycles or more). One WARN is 6.1's own and known (known_warns below: the
# power_supply driver's probe error path); it is counted, not failed. Prints where the
# removals landed, the RSS figures and "bench storm.guest.cycles VALUE cycles/s". Ends with
# "N passed, N failed".
#
#   CYCLES        insert/remove cycles (default 100)
#   SEED          seed of the random choices (default: from the clock; printed for a replay,
#                 which repeats the choices, not the kernel's timing)
#   STORM_SLOTS   slots in the frame (default 6)
#   STORM_MODULES catalog modules to draw from (default: those the guest binds, as in
#                 classes_test.sh: sensor battery light keyboard vibrator loopback dual uart)
#
# Insertions and the removals after binding go through the control socket (gbvp ctl);
# removals before binding through the simulator's standard input, which takes them within a
# millisecond: the ctl client's start-up alone (20-200 ms on a loaded machine) is longer
# than the kernel's enumeration of a module (10-400 ms).
source "$(dirname "$0")/lib.sh"

cycles=${CYCLES:-100}
seed=${SEED:-$(( $(date +%s%N) / 1000 % 1000000 ))}
nslots=${STORM_SLOTS:-6}
RANDOM=$seed
echo "storm: $cycles cycles over $nslots slots, seed $seed (replay: SEED=$seed CYCLES=$cycles $0)"

[ -x "$gbvp" ] || make -j2 "$gbvp" >/dev/null || { not_ok "build $gbvp"; finish; }
# Each module's width (interfaces) and the connections the kernel makes once all its
# drivers bound (the control CPort and each bundle CPort of every interface).
declare -A width_of conns_of
read -r -a modules <<<"${STORM_MODULES:-sensor battery light keyboard vibrator loopback dual uart}"
for m in "${modules[@]}"; do
    chk=$("$gbvp" module check "$m") || { not_ok "gbvp module check $m" "$chk"; finish; }
    width_of[$m]=$(sed -n 's/.*ok, \([0-9]*\) interface.*/\1/p' <<<"$chk")
    conns_of[$m]=$(( width_of[$m] + $(grep -c '^ *cport ' <<<"$chk") ))
done
[ ${#modules[@]} -gt 0 ] || { not_ok "gbvp module list names the catalog"; finish; }

ctl_sock=$run_dir/control.sock
gbvp_boot --slots "$nslots" --control "$ctl_sock"
ctl() { "$gbvp" ctl --socket "$ctl_sock" --timeout 30 "$@"; }

G=/sys/bus/greybus/devices
if ! wait_guest 60 "[ -e $G/1-svc/endo_id ]"; then
    not_ok "the SVC (1-svc) appears within 60 s" "$(tail -n 5 "$run_dir/sim.log")"; finish
fi
# timestamps on the kernel's console lines (console.log), for whoever reads a kept run
agent 'echo Y >/sys/module/printk/parameters/time' >/dev/null 2>&1
# What a module leaves behind while it is in: Greybus devices, gbphy devices, class devices
# and /dev nodes. After every removal the guest must show what it showed at boot.
agent "cat >/tmp/storm_state.sh <<'GBVP_STORM_EOF'
echo greybus: \$(ls $G)
echo gbphy: \$(ls /sys/bus/gbphy/devices)
echo class: \$(ls /sys/class/power_supply /sys/class/vibrator /sys/class/gb_loopback /sys/class/input 2>/dev/null | grep -v '^/\|^\$'; ls /sys/class/leds | grep gbvp)
echo dev: \$(ls /dev | grep -E '^(ttyGB|gpiochip|hidraw|i2c-)')
GBVP_STORM_EOF" >/dev/null 2>&1
boot_state=$(agent 'sh /tmp/storm_state.sh' 2>&1)
echo "   guest at boot: ${boot_state//$'\n'/; }"
[[ $boot_state == greybus:*gbphy:*class:*dev:* ]] ||
    { not_ok "the guest lists its Greybus, gbphy and class devices" "$boot_state"; finish; }

# --- traffic in the guest --------------------------------------------------------------------
traffic_script=$(cat "$(dirname "$0")/storm_traffic.sh")
if agent "rm -f /tmp/storm.stop /tmp/storm.traffic; cat >/tmp/storm_traffic.sh <<'GBVP_STORM_EOF'
$traffic_script
GBVP_STORM_EOF
(setsid sh /tmp/storm_traffic.sh </dev/null >/dev/null 2>&1 &)" >/dev/null 2>&1 &&
   wait_guest 20 '[ -s /tmp/storm.traffic ]'; then
    ok "guest traffic loop running (storm_traffic.sh)"
else
    not_ok "guest traffic loop starts"
fi

# --- checks ----------------------------------------------------------------------------------
# The kernel's console (ttyS0, loglevel 7) is console.log: scanned on the host, no agent trip.
CRASH='Oops|WARNING:|BUG[: ]|refcount|list_del corruption|list_add corruption|general protection|Kernel panic|Call Trace|blocked for more than|use-after-free|stack-protector'
crash_reported=0
# Known and not ours: 6.1's power_supply driver, when a request of its probe fails (the
# module was pulled during it: GET_DESCRIPTION times out or the connection is gone),
# releases its supplies with cancel_delayed_work_sync() on a delayed work that only
# gb_power_supply_enable() initialises (drivers/staging/greybus/power_supply.c,
# _gb_power_supply_release): __flush_work() warns "WARN_ON(!work->func)". known_warns
# drops those WARN blocks (a "cut here" block at kernel/workqueue.c right after "power_supply
# ...: Fail to configure supplies devices") from the log on standard input and prints the
# rest; the number dropped goes to run_dir/known_warns.
known_warns() {
    awk -v out="$run_dir/known_warns" '
        /-+\[ cut here \]-+/ {
            inblock = 1; block = $0; after_psy = 0
            for (i = NR - 15; i < NR; i++)
                if (i > 0 && ctx[i % 16] ~ /power_supply [^ ]+: Fail to configure supplies devices/) after_psy = 1
            next
        }
        { ctx[NR % 16] = $0 }
        inblock { block = block "\n" $0 }
        inblock && /---\[ end trace/ {
            inblock = 0
            if (after_psy && block ~ /WARNING: .* at kernel\/workqueue\.c:[0-9]+/) n++; else print block
            next
        }
        !inblock { print }
        END { if (inblock) print block; print n + 0 > out }'
}
check_kernel_log() { # check_kernel_log WHEN: a failure the first time the log shows a crash
    local hits
    hits=$(known_warns <"$run_dir/console.log" | grep -aE "$CRASH" | head -n 20)
    if [ -n "$hits" ] && [ $crash_reported = 0 ]; then
        crash_reported=1
        not_ok "kernel log clean ($1): no oops, WARN, BUG, refcount or list corruption" "$hits"
    fi
}
check_alive() { # check_alive WHEN: the simulator and QEMU still run
    local p
    for p in "$sim_pid:the simulator" "$qemu_pid:QEMU"; do
        if ! kill -0 "${p%%:*}" 2>/dev/null; then
            not_ok "${p#*:} still running ($1)" "$(tail -n 15 "$run_dir/sim.log")" \
                "$(tail -n 25 "$run_dir/console.log")"
            finish
        fi
    done
}
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$sim_pid/status"; }
# the simulator's open files: the least of a few looks, as a ctl client that just left may
# not have been closed yet
fds() {
    local n least=
    for _ in 1 2 3 4 5; do
        n=$(ls "/proc/$sim_pid/fd" | wc -l)
        [ -z "$least" ] || [ "$n" -lt "$least" ] && least=$n
        sleep 0.1
    done
    echo "$least"
}

# --- the storm -------------------------------------------------------------------------------
# Every step follows the simulator's log, read as it grows: a slot is taken when the log says
# its module went in, free when it says it left; between the two the log tells when the kernel
# activated each interface and made each connection (a module is bound when every
# connection of its drivers was made). ctl requests run in the background so that the loop
# keeps its millisecond pace while a client starts.
#
# Slot state st[s]: free, inserting (ctl insert sent), in (the module is in), removing
# (removal sent), or "+" (the second slot of a two-interface module). mod[s] names the module,
# plan[s] where its removal goes: now (as soon as it is in), early (0-80 ms after), enum
# (0-40 ms after the kernel activated its first interface: during enumeration), bound
# (0-2 s after every driver bound, traffic running); due[s] when (ms) once known.
declare -A st mod plan due delay pause since free_at job made activated
for ((s = 0; s < nslots; s++)); do st[$s]=free free_at[$s]=0 job[$s]=; done
started=0 completed=0 errors=() forced=0
declare -A planned=([now]=0 [early]=0 [enum]=0 [bound]=0)
# Every choice is drawn from the seed before the storm starts, so that a seed replays the
# same cycles (the kernel's timing is its own): cycle k puts c_mod[k] into slot c_slot[k]
# (waiting until that slot is free), its removal goes where c_plan[k] and c_delay[k] say,
# and the slot rests c_pause[k] ms after it.
declare -a c_mod c_slot c_plan c_delay c_pause
for ((k = 1; k <= cycles; k++)); do
    m=${modules[RANDOM % ${#modules[@]}]}
    c_mod[k]=$m c_slot[k]=$((RANDOM % (nslots - width_of[$m] + 1)))
    r=$((RANDOM % 100))
    if [ $r -lt 15 ]; then c_plan[k]=now c_delay[k]=0
    elif [ $r -lt 40 ]; then c_plan[k]=early c_delay[k]=$((RANDOM % 80))
    elif [ $r -lt 60 ]; then c_plan[k]=enum c_delay[k]=$((RANDOM % 40))
    else c_plan[k]=bound c_delay[k]=$((RANDOM % 2000))
    fi
    c_pause[k]=$((RANDOM % 300))
    planned[${c_plan[k]}]=$(( ${planned[${c_plan[k]}]} + 1 ))
done
tick() { now=${EPOCHREALTIME/./}; now=$((now / 1000)); }  # ms, no subshell
mkfifo "$run_dir/nap"
exec 9<>"$run_dir/nap"
nap() { read -r -t "$1" -u 9 _; }  # a sleep without a process
re_ins='slot: module [^ ]+ inserted in slot ([0-9]+) '
re_rem='slot: module [^ ]+ removed from slot ([0-9]+)'
re_conn='svc: connection 1:[0-9]+ <-> ([0-9]+):[0-9]+ \('
re_act='svc: interface ([0-9]+) activated'

exec 8<"$run_dir/sim.log"
log_partial=
on_log_line() {
    local s i
    if [[ $1 =~ $re_conn ]]; then
        made[${BASH_REMATCH[1]}]=$(( ${made[${BASH_REMATCH[1]}]:-0} + 1 ))
    elif [[ $1 =~ $re_act ]]; then
        activated[${BASH_REMATCH[1]}]=1
    elif [[ $1 =~ $re_ins ]]; then
        s=${BASH_REMATCH[1]}
        [ "${st[$s]}" = inserting ] || return
        st[$s]=in since[$s]=$now
        case ${plan[$s]} in
        now) due[$s]=$now ;;
        early) due[$s]=$((now + delay[$s])) ;;
        *) due[$s]= ;;
        esac
    elif [[ $1 =~ $re_rem ]]; then
        s=${BASH_REMATCH[1]}
        [ "${st[$s]}" = removing ] || return
        for ((i = 0; i < width_of[${mod[$s]}]; i++)); do
            st[$((s + i))]=free free_at[$((s + i))]=$((now + pause[$s]))
        done
        completed=$((completed + 1))
    fi
}
poll_sim_log() {
    local line
    while :; do
        if IFS= read -r line <&8; then
            on_log_line "$log_partial$line"
            log_partial=
        else
            log_partial+=$line
            return
        fi
    done
}
# job_done SLOT: the slot's background ctl request finished (its failure recorded), or none
job_done() {
    local s=$1 rc
    [ -z "${job[$s]}" ] && return 0
    kill -0 "${job[$s]}" 2>/dev/null && return 1
    wait "${job[$s]}"; rc=$?
    job[$s]=
    if [ $rc != 0 ]; then
        errors+=("slot $s (${mod[$s]}, ${st[$s]}): $(cat "$run_dir/ctl.$s")")
        # a refused insertion leaves the slot free
        [ "${st[$s]}" = inserting ] && st[$s]=free free_at[$s]=$((now + 500))
    fi
    return 0
}
module_bound() { # module_bound SLOT: every connection of its module made
    local s=$1 m=${mod[$1]} i n=0
    for ((i = 0; i < width_of[$m]; i++)); do n=$((n + ${made[$((s + 2 + i))]:-0})); done
    [ "$n" -ge "${conns_of[$m]}" ]
}
# insert_next: starts cycle started+1 when its slots are free and rested; false if not yet
insert_next() {
    local k=$((started + 1)) s m i
    s=${c_slot[k]} m=${c_mod[k]}
    for ((i = 0; i < width_of[$m]; i++)); do
        [ "${st[$((s + i))]}" = free ] && [ "${free_at[$((s + i))]}" -le "$now" ] &&
            job_done $((s + i)) || return 1
    done
    for ((i = 0; i < width_of[$m]; i++)); do made[$((s + 2 + i))]=0 activated[$((s + 2 + i))]=; done
    for ((i = 1; i < width_of[$m]; i++)); do st[$((s + i))]=+ mod[$((s + i))]=$m; done
    st[$s]=inserting mod[$s]=$m since[$s]=$now due[$s]=
    plan[$s]=${c_plan[k]} delay[$s]=${c_delay[k]} pause[$s]=${c_pause[k]}
    started=$k
    ctl insert slot="$s" module="$m" >"$run_dir/ctl.$s" 2>&1 &
    job[$s]=$!
}
# remove_one SLOT: after binding through the control socket; earlier through the simulator's
# standard input (on time to the millisecond)
remove_one() {
    local s=$1
    st[$s]=removing since[$s]=$now
    if [ "${plan[$s]}" = bound ]; then
        ctl remove slot="$s" >"$run_dir/ctl.$s" 2>&1 &
        job[$s]=$!
    else
        sim_send "remove $s"
    fi
}
# storm_until N: cycles until N have been started and all of them removed.
storm_until() {
    local target=$1 s busy last_check=$completed
    while :; do
        tick
        poll_sim_log
        busy=0
        while [ $started -lt "$target" ] && insert_next; do :; done
        for ((s = 0; s < nslots; s++)); do
            case ${st[$s]} in
            +|free) ;;
            inserting)
                job_done "$s"
                # the simulator did not log the insertion 30 s after it was asked
                if [ "${st[$s]}" = inserting ] && [ $((now - since[$s])) -gt 30000 ]; then
                    errors+=("slot $s: insertion of ${mod[$s]} never logged")
                    st[$s]=free
                fi ;;
            in)
                if [ -z "${due[$s]}" ]; then
                    case ${plan[$s]} in
                    enum) [ -n "${activated[$((s + 2))]}" ] && due[$s]=$((now + delay[$s])) ;;
                    bound) module_bound "$s" && due[$s]=$((now + delay[$s])) ;;
                    esac
                    # a kernel that does not get there within 20 s (it may be timing out
                    # the requests of modules pulled earlier) gets its module pulled anyway
                    if [ -z "${due[$s]}" ] && [ $((now - since[$s])) -gt 20000 ]; then
                        forced=$((forced + 1)) due[$s]=$now
                    fi
                fi
                [ -n "${due[$s]}" ] && [ "${due[$s]}" -le "$now" ] && remove_one "$s" ;;
            removing)
                job_done "$s"
                if [ $((now - since[$s])) -gt 30000 ]; then
                    errors+=("slot $s: removal of ${mod[$s]} never logged")
                    st[$s]=free
                fi ;;
            esac
            [ "${st[$s]}" != free ] && busy=1
        done
        if [ $((completed - last_check)) -ge 25 ]; then
            last_check=$completed
            check_alive "cycle $completed"
            check_kernel_log "by cycle $completed"
            printf '   %d cycles, %s s, sim RSS %s KiB\n' "$completed" "$(secs $((now - storm_t0)))" "$(rss_kib)"
        fi
        if [ $busy = 0 ] && [ $started -ge "$target" ]; then
            for ((s = 0; s < nslots; s++)); do until job_done "$s"; do nap 0.01; done; done
            return
        fi
        nap 0.005
    done
}
# checkpoint NAME: after every module was removed, the guest and the simulator hold nothing
# of them (within 120 s: a module pulled mid-enumeration costs the kernel timeouts).
declare -A rss_at fds_at
checkpoint() {
    local name=$1 t0 now_state st conn pend
    tick; t0=$now
    # (the guest bounds its loop by its clock, and on failure says what is left and which
    # tasks are stuck in the kernel: one agent round trip either way)
    if now_state=$(AGENT_TIMEOUT=200 agent "end=\$((\$(date +%s) + 120))
            while s=\$(sh /tmp/storm_state.sh); [ \"\$s\" != '$boot_state' ]; do
                if [ \$(date +%s) -ge \$end ]; then
                    echo \"\$s\"
                    for p in /proc/[0-9]*; do
                        [ \"\$(cut -d' ' -f3 \$p/stat 2>/dev/null)\" = D ] && echo \"stuck (D): \$(cat \$p/comm) (pid \${p#/proc/})\"
                    done
                    exit 1
                fi
                sleep 0.2
            done" 2>&1); then
        tick
        ok "$name: every module removed, Greybus, gbphy and class devices and /dev nodes as at boot ($(secs $((now - t0))) s to settle)"
    else
        not_ok "$name: the guest's devices back to their boot state within 120 s" \
            "now:  ${now_state//$'\n'/; }" "boot: ${boot_state//$'\n'/; }"
    fi
    for _ in $(seq 1 100); do
        st=$(ctl stats)
        conn=$(sed -n 's/.*"connections":\([0-9]*\).*/\1/p' <<<"$st")
        pend=$(sed -n 's/.*"pending_events":\([0-9]*\).*/\1/p' <<<"$st")
        [ "$conn" = 0 ] && [ "$pend" = 0 ] && break
        sleep 0.2
    done
    if [ "$conn" = 0 ] && [ "$pend" = 0 ]; then
        ok "$name: the simulator holds no connection and no pending hot-plug event"
    else
        not_ok "$name: the simulator holds no connection and no pending event" "$st"
    fi
    rss_at[$name]=$(rss_kib) fds_at[$name]=$(fds)
    echo "   $name: sim RSS ${rss_at[$name]} KiB, ${fds_at[$name]} open fds"
}

rss_at[boot]=$(rss_kib) fds_at[boot]=$(fds)
echo "   boot: sim RSS ${rss_at[boot]} KiB, ${fds_at[boot]} open fds"
mark_console=$(wc -l <"$run_dir/console.log")
tick; storm_t0=$now
first=$(( cycles < 100 ? cycles : 100 ))
storm_until "$first"
check_alive "cycle $first"
checkpoint "cycle $first"
rss_base=${rss_at[cycle $first]}
n=$first
while [ "$n" -lt "$cycles" ]; do
    n=$(( n + 250 < cycles ? n + 250 : cycles ))
    storm_until "$n"
    check_alive "cycle $n"
    checkpoint "cycle $n"
done
tick; storm_ms=$((now - storm_t0))

# --- results ---------------------------------------------------------------------------------
n_ins=$(grep -c 'slot: module .* inserted in slot' "$run_dir/sim.log")
n_rem=$(grep -c 'slot: module .* removed from slot' "$run_dir/sim.log")
if [ ${#errors[@]} = 0 ] && [ "$n_ins" = "$started" ] &&
   [ "$n_rem" = "$started" ]; then
    ok "$started insertions and $completed removals, all done by the simulator"
else
    not_ok "every insertion and removal done ($started asked; the simulator logged $n_ins and $n_rem)" \
        "${errors[@]}"
fi
traffic=$(agent 'touch /tmp/storm.stop; cat /tmp/storm.traffic')
echo "   guest traffic: $traffic"
# operations that reached a device: every counter but the rounds
ops=$(awk '{ for (i = 4; i <= NF; i += 2) n += $i } END { print n + 0 }' <<<"$traffic")
if [ "$ops" -gt 0 ]; then
    ok "traffic ran during the storm: $ops operations reached a device ($traffic)"
else
    not_ok "traffic ran in the guest during the storm" "got: $traffic"
fi

# Where the removals landed (from the simulator's log): before the kernel activated the
# interface, during enumeration (activated, not every connection made), after every driver
# bound.
landed=$(awk -v conns="$(for m in "${modules[@]}"; do printf '%s=%s ' "$m" "${conns_of[$m]}"; done)" '
    BEGIN { n = split(conns, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, "="); want[p[1]] = p[2] } }
    /slot: module .* inserted in slot/ {
        s = $0; sub(/.*inserted in slot /, "", s); slot = s + 0
        m = $0; sub(/.*slot: module /, "", m); sub(/ .*/, "", m)
        r = $0; sub(/.*interfaces /, "", r); sub(/\).*/, "", r); split(r, ab, /\.\./)
        for (i = ab[1]; i <= ab[2]; i++) { owner[i] = slot; act[i] = 0; made[i] = 0 }
        name[slot] = m; first[slot] = ab[1]; last[slot] = ab[2]
    }
    /svc: interface [0-9]+ activated/ { i = $0; sub(/.*interface /, "", i); act[i + 0] = 1 }
    /svc: connection 1:[0-9]+ <-> [0-9]+:[0-9]+ \(/ { i = $0; sub(/.*<-> /, "", i); sub(/:.*/, "", i); made[i + 0]++ }
    /slot: module .* removed from slot/ {
        s = $0; sub(/.*removed from slot /, "", s); slot = s + 0
        a = 0; c = 0
        for (i = first[slot]; i <= last[slot]; i++) { a += act[i]; c += made[i] }
        if (a == 0) before++; else if (c < want[name[slot]]) during++; else bound++
    }
    END { printf "%d %d %d\n", before, during, bound }' "$run_dir/sim.log")
read -r l_before l_during l_bound <<<"$landed"
echo "   removals planned: ${planned[now]} at once, ${planned[early]} 0-80 ms after insertion, ${planned[enum]} 0-40 ms after activation, ${planned[bound]} 0-2 s after binding ($forced pulled after 20 s without getting there)"
echo "   removals landed: $l_before before activation, $l_during during enumeration, $l_bound after every driver bound"
if [ $(( l_before + l_during )) -gt 0 ] && [ "$l_bound" -gt 0 ]; then
    ok "removals hit both unfinished enumerations ($((l_before + l_during))) and bound modules ($l_bound)"
else
    not_ok "removals hit both unfinished enumerations and bound modules" "before/during/after: $landed"
fi

# The SVC's requests to the AP (MODULE_INSERTED, MODULE_REMOVED) are answered at once by a
# live kernel; one left unanswered for 1 s means the AP's path to the SVC stalled (seen once
# in a 1,000-cycle run: the AP's messages stopped reaching the SVC through the switch)
unanswered=$(grep -c 'svc: AP did not answer' "$run_dir/sim.log")
if [ "$unanswered" = 0 ]; then
    ok "the AP answered every request of the SVC"
else
    not_ok "the AP answered every request of the SVC" "$unanswered unanswered" \
        "$(grep -m3 'svc: AP did not answer' "$run_dir/sim.log")" "$(ctl stats)"
fi
# Nothing meant for QEMU was lost on the way: the bridge's queue absorbed every burst
st=$(ctl stats)
lost=$(grep -oE '"qemu_(messages_dropped|answers_dropped|records_discarded|messages_no_peer|messages_too_big|records_refused)":[0-9]+' <<<"$st")
if [ -n "$lost" ] && ! grep -qv ':0$' <<<"$lost"; then
    ok "no record for QEMU lost in the storm (most waiting for room in the ring at once: $(sed -n 's/.*"qemu_queue_peak":\([0-9]*\).*/\1/p' <<<"$st"))"
else
    not_ok "no record for QEMU lost in the storm" "${lost//$'\n'/ }" "$st"
fi
check_kernel_log "after the storm"
if [ $crash_reported = 0 ]; then
    # the guest's own log too (what the console may have dropped)
    hits=$(agent 'dmesg' | known_warns | grep -aE "$CRASH" | head -n 20)
    if [ -z "$hits" ]; then
        known_warns <"$run_dir/console.log" >/dev/null
        errs=$(tail -n "+$((mark_console + 1))" "$run_dir/console.log" | grep -acE '(failed|error).*-[0-9]+|-[0-9]+$')
        ok "kernel log: no oops, WARN, BUG, refcount or list corruption ($errs greybus error lines of the surprise removals; $(cat "$run_dir/known_warns") WARN(s) of 6.1's power_supply probe error path, known)"
    else
        not_ok "dmesg: no oops, WARN, BUG, refcount or list corruption" "$hits"
    fi
fi

last="cycle $cycles"
echo "   sim RSS: boot ${rss_at[boot]} KiB, cycle $first $rss_base KiB, cycle $cycles ${rss_at[$last]} KiB" \
     "(growth $(( rss_at[$last] - rss_base )) KiB); open fds: boot ${fds_at[boot]}, end ${fds_at[$last]}"
if [ "$cycles" -ge 200 ]; then
    if [ $(( rss_at[$last] - rss_base )) -lt 1024 ]; then
        ok "simulator RSS steady: $rss_base KiB at cycle $first, ${rss_at[$last]} KiB at cycle $cycles (under 1 MiB growth)"
    else
        not_ok "simulator RSS grows under 1 MiB from cycle $first to $cycles" \
            "$rss_base KiB -> ${rss_at[$last]} KiB"
    fi
fi
if [ "${fds_at[$last]}" -le "${fds_at[boot]}" ]; then
    ok "simulator open files back to their boot count (${fds_at[boot]})"
else
    not_ok "simulator leaks no file descriptor" "boot ${fds_at[boot]}, end ${fds_at[$last]}"
fi
echo "storm: $cycles cycles in $(secs "$storm_ms") s (checkpoints included), seed $seed"
echo "bench storm.guest.cycles $(awk -v c="$cycles" -v t="$storm_ms" 'BEGIN { printf "%.2f", c * 1000 / t }') cycles/s"
echo "bench storm.guest.sim_rss_growth $(( rss_at[$last] - rss_base )) KiB"
finish

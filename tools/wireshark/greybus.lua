-- SPDX-License-Identifier: MIT
-- Wireshark dissector for gbvp captures (docs/tracing.md): the 24-byte record header of each
-- packet, the Greybus message after it (docs/greybus.md, "Message header") and the payloads
-- of the protocols gbvp implements.
--
--   tshark -X lua_script:tools/wireshark/greybus.lua -r run.pcapng
--   wireshark -X lua_script:tools/wireshark/greybus.lua run.pcapng
--   make install-wireshark        (copies this file to the personal Lua plugin folder)
--
-- The protocol of a connection is not in the message, so it is learned from the capture in
-- packet order: the SVC connection is AP hd CPort 0 <-> SVC CPort 0 (directions 2 and 3),
-- CPort 0 of every interface is its control connection, and the other CPorts get their
-- protocol from the CPort descriptors of the interface's GET_MANIFEST response. The SVC's
-- CONN_CREATE requests tell which interface CPort an AP hd CPort is joined to (used when a
-- dropped message has no known destination), SVC_HELLO the AP's interface id, and
-- MODULE_INSERTED / MODULE_REMOVED forget what was learned about an interface. A message
-- on a CPort not known yet shows its header and its payload as bytes.
--
-- Responses are paired with their requests by (connection, requester, type, operation id).
-- tshark makes one pass: "response in frame N" on a request needs `tshark -2`.
--
-- Names and layouts: greybus/gb_protocols.h, greybus/svc_protocol.h, docs/greybus.md, the
-- handlers in virtual-modules/ and switch-model/svc_ops.c; for the protocols gbvp does not
-- implement (SDIO, firmware download and management, authentication, bootrom, audio) the
-- operation names of Linux 6.1 include/linux/greybus/greybus_protocols.h, payloads as bytes.

local gbvp = Proto("gbvp", "gbvp capture record")
local gb = Proto("greybus", "Greybus")

---------------------------------------------------------------------------------------------
-- Name tables
---------------------------------------------------------------------------------------------

local DIR_NAMES = {
    [0] = "AP → interface", [1] = "interface → AP", [2] = "AP → SVC", [3] = "SVC → AP",
    [4] = "interface → interface",
}
local KIND_NAMES = { [0] = "Greybus message", [1] = "UniPro data-link frame" }
local DL_DIR_NAMES = { [0] = "toward the switch", [1] = "from the switch" }
local DL_TYPE_NAMES = { [0] = "data", [1] = "AFC", [2] = "NAC" }
local VERDICT_NAMES = {
    [0] = "delivered", [1] = "no connection", [2] = "no route", [3] = "peer gone",
}

local RESULT_NAMES = {
    [0x00] = "GB_OP_SUCCESS", [0x01] = "GB_OP_INTERRUPTED", [0x02] = "GB_OP_TIMEOUT",
    [0x03] = "GB_OP_NO_MEMORY", [0x04] = "GB_OP_PROTOCOL_BAD", [0x05] = "GB_OP_OVERFLOW",
    [0x06] = "GB_OP_INVALID", [0x07] = "GB_OP_RETRY", [0x08] = "GB_OP_NONEXISTENT",
    [0x09] = "GB_OP_INVALID_STATE", [0xfe] = "GB_OP_UNKNOWN_ERROR", [0xff] = "GB_OP_MALFUNCTION",
}
local RESULT_SHORT = {
    [0x00] = "success", [0x01] = "interrupted", [0x02] = "timeout", [0x03] = "no memory",
    [0x04] = "protocol bad", [0x05] = "overflow", [0x06] = "invalid", [0x07] = "retry",
    [0x08] = "nonexistent", [0x09] = "invalid state", [0xfe] = "unknown error",
    [0xff] = "malfunction",
}

local PROTOCOL_NAMES = {
    [0x00] = "Control", [0x02] = "GPIO", [0x03] = "I2C", [0x04] = "UART", [0x05] = "HID",
    [0x06] = "USB", [0x07] = "SDIO", [0x08] = "Power supply", [0x09] = "PWM", [0x0b] = "SPI",
    [0x0c] = "Display", [0x0d] = "Camera management", [0x0e] = "Sensor", [0x0f] = "Lights",
    [0x10] = "Vibrator", [0x11] = "Loopback", [0x12] = "Audio management",
    [0x13] = "Audio data", [0x14] = "SVC", [0x15] = "Bootrom", [0x16] = "Camera data",
    [0x17] = "Firmware download", [0x18] = "Firmware management", [0x19] = "Authentication",
    [0x1a] = "Log", [0xfe] = "Raw", [0xff] = "Vendor",
}
local CLASS_NAMES = {
    [0x00] = "Control", [0x05] = "HID", [0x08] = "Power supply", [0x0a] = "Bridged PHY",
    [0x0c] = "Display", [0x0d] = "Camera", [0x0e] = "Sensor", [0x0f] = "Lights",
    [0x10] = "Vibrator", [0x11] = "Loopback", [0x12] = "Audio", [0x15] = "Bootrom",
    [0x16] = "Firmware management", [0x17] = "Log", [0xfe] = "Raw", [0xff] = "Vendor",
}
local DESC_TYPE_NAMES = { [1] = "Interface", [2] = "String", [3] = "Bundle", [4] = "CPort" }

-- Operation types, one table per protocol. Type 0x00 (CPort Shutdown) is common to all.
local CONTROL_TYPES = {
    [0x01] = "VERSION", [0x02] = "PROBE_AP", [0x03] = "GET_MANIFEST_SIZE",
    [0x04] = "GET_MANIFEST", [0x05] = "CONNECTED", [0x06] = "DISCONNECTED",
    [0x07] = "TIMESYNC_ENABLE", [0x08] = "TIMESYNC_DISABLE", [0x09] = "TIMESYNC_AUTHORITATIVE",
    [0x0b] = "BUNDLE_VERSION", [0x0c] = "DISCONNECTING", [0x0d] = "TIMESYNC_GET_LAST_EVENT",
    [0x0e] = "MODE_SWITCH", [0x0f] = "BUNDLE_SUSPEND", [0x10] = "BUNDLE_RESUME",
    [0x11] = "BUNDLE_DEACTIVATE", [0x12] = "BUNDLE_ACTIVATE", [0x13] = "INTF_SUSPEND_PREPARE",
    [0x14] = "INTF_DEACTIVATE_PREPARE", [0x15] = "INTF_HIBERNATE_ABORT",
}
local SVC_TYPES = {
    [0x01] = "PROTOCOL_VERSION", [0x02] = "SVC_HELLO", [0x03] = "INTF_DEVICE_ID",
    [0x06] = "INTF_RESET", [0x07] = "CONN_CREATE", [0x08] = "CONN_DESTROY",
    [0x09] = "DME_PEER_GET", [0x0a] = "DME_PEER_SET", [0x0b] = "ROUTE_CREATE",
    [0x0c] = "ROUTE_DESTROY", [0x0d] = "TIMESYNC_ENABLE", [0x0e] = "TIMESYNC_DISABLE",
    [0x0f] = "TIMESYNC_AUTHORITATIVE", [0x10] = "INTF_SET_PWRM", [0x11] = "INTF_EJECT",
    [0x13] = "PING", [0x14] = "PWRMON_RAIL_COUNT_GET", [0x15] = "PWRMON_RAIL_NAMES_GET",
    [0x16] = "PWRMON_SAMPLE_GET", [0x17] = "PWRMON_INTF_SAMPLE_GET",
    [0x18] = "TIMESYNC_WAKE_PINS_ACQUIRE", [0x19] = "TIMESYNC_WAKE_PINS_RELEASE",
    [0x1a] = "TIMESYNC_PING", [0x1f] = "MODULE_INSERTED", [0x20] = "MODULE_REMOVED",
    [0x21] = "INTF_VSYS_ENABLE", [0x22] = "INTF_VSYS_DISABLE", [0x23] = "INTF_REFCLK_ENABLE",
    [0x24] = "INTF_REFCLK_DISABLE", [0x25] = "INTF_UNIPRO_ENABLE",
    [0x26] = "INTF_UNIPRO_DISABLE", [0x27] = "INTF_ACTIVATE", [0x28] = "INTF_RESUME",
    [0x29] = "INTF_MAILBOX_EVENT", [0x2a] = "INTF_OOPS",
}
local GPIO_TYPES = {
    [0x02] = "LINE_COUNT", [0x03] = "ACTIVATE", [0x04] = "DEACTIVATE", [0x05] = "GET_DIRECTION",
    [0x06] = "DIRECTION_IN", [0x07] = "DIRECTION_OUT", [0x08] = "GET_VALUE", [0x09] = "SET_VALUE",
    [0x0a] = "SET_DEBOUNCE", [0x0b] = "IRQ_TYPE", [0x0c] = "IRQ_MASK", [0x0d] = "IRQ_UNMASK",
    [0x0e] = "IRQ_EVENT",
}
local I2C_TYPES = { [0x02] = "FUNCTIONALITY", [0x05] = "TRANSFER" }
local UART_TYPES = {
    [0x02] = "SEND_DATA", [0x03] = "RECEIVE_DATA", [0x04] = "SET_LINE_CODING",
    [0x05] = "SET_CONTROL_LINE_STATE", [0x06] = "SEND_BREAK", [0x07] = "SERIAL_STATE",
    [0x08] = "RECEIVE_CREDITS", [0x09] = "FLUSH_FIFOS",
}
local HID_TYPES = {
    [0x02] = "GET_DESC", [0x03] = "GET_REPORT_DESC", [0x04] = "PWR_ON", [0x05] = "PWR_OFF",
    [0x06] = "GET_REPORT", [0x07] = "SET_REPORT", [0x08] = "IRQ_EVENT",
}
local POWER_SUPPLY_TYPES = {
    [0x02] = "GET_SUPPLIES", [0x03] = "GET_DESCRIPTION", [0x04] = "GET_PROP_DESCRIPTORS",
    [0x05] = "GET_PROPERTY", [0x06] = "SET_PROPERTY", [0x07] = "EVENT",
}
local PWM_TYPES = {
    [0x02] = "PWM_COUNT", [0x03] = "ACTIVATE", [0x04] = "DEACTIVATE", [0x05] = "CONFIG",
    [0x06] = "POLARITY", [0x07] = "ENABLE", [0x08] = "DISABLE",
}
local SPI_TYPES = { [0x02] = "MASTER_CONFIG", [0x03] = "DEVICE_CONFIG", [0x04] = "TRANSFER" }
local LIGHTS_TYPES = {
    [0x02] = "GET_LIGHTS", [0x03] = "GET_LIGHT_CONFIG", [0x04] = "GET_CHANNEL_CONFIG",
    [0x05] = "GET_CHANNEL_FLASH_CONFIG", [0x06] = "SET_BRIGHTNESS", [0x07] = "SET_BLINK",
    [0x08] = "SET_COLOR", [0x09] = "SET_FADE", [0x0a] = "EVENT", [0x0b] = "SET_FLASH_INTENSITY",
    [0x0c] = "SET_FLASH_STROBE", [0x0d] = "SET_FLASH_TIMEOUT", [0x0e] = "GET_FLASH_FAULT",
}
local VIBRATOR_TYPES = { [0x02] = "ON", [0x03] = "OFF" }
local LOOPBACK_TYPES = { [0x02] = "PING", [0x03] = "TRANSFER", [0x04] = "SINK" }
local LOG_TYPES = { [0x02] = "SEND_LOG" }
local RAW_TYPES = { [0x02] = "SEND" }
-- not implemented by gbvp: names from Linux 6.1 greybus_protocols.h
local SDIO_TYPES = {
    [0x02] = "GET_CAPABILITIES", [0x03] = "SET_IOS", [0x04] = "COMMAND", [0x05] = "TRANSFER",
    [0x06] = "EVENT",
}
local FW_DOWNLOAD_TYPES = {
    [0x01] = "FIND_FIRMWARE", [0x02] = "FETCH_FIRMWARE", [0x03] = "RELEASE_FIRMWARE",
}
local FW_MGMT_TYPES = {
    [0x01] = "INTERFACE_FW_VERSION", [0x02] = "LOAD_AND_VALIDATE_FW", [0x03] = "LOADED_FW",
    [0x04] = "BACKEND_FW_VERSION", [0x05] = "BACKEND_FW_UPDATE", [0x06] = "BACKEND_FW_UPDATED",
}
local AUTHENTICATION_TYPES = {
    [0x01] = "GET_ENDPOINT_UID", [0x02] = "GET_IMS_CERTIFICATE", [0x03] = "AUTHENTICATE",
}
local BOOTROM_TYPES = {
    [0x01] = "VERSION", [0x02] = "FIRMWARE_SIZE", [0x03] = "GET_FIRMWARE",
    [0x04] = "READY_TO_BOOT", [0x05] = "AP_READY", [0x06] = "GET_VID_PID",
}
local AUDIO_TYPES = {
    [0x02] = "GET_TOPOLOGY_SIZE", [0x03] = "GET_TOPOLOGY", [0x04] = "GET_CONTROL",
    [0x05] = "SET_CONTROL", [0x06] = "ENABLE_WIDGET", [0x07] = "DISABLE_WIDGET",
    [0x08] = "GET_PCM", [0x09] = "SET_PCM", [0x0a] = "SET_TX_DATA_SIZE", [0x0c] = "ACTIVATE_TX",
    [0x0d] = "DEACTIVATE_TX", [0x0e] = "SET_RX_DATA_SIZE", [0x10] = "ACTIVATE_RX",
    [0x11] = "DEACTIVATE_RX", [0x12] = "JACK_EVENT", [0x13] = "BUTTON_EVENT",
    [0x14] = "STREAMING_EVENT", [0x15] = "SEND_DATA",
}

-- Field values
local BUNDLE_PM_STATUS = { [0] = "OK", [1] = "INVAL", [2] = "BUSY", [3] = "FAIL", [4] = "NA" }
local INTF_PM_STATUS = { [0] = "OK", [1] = "BUSY", [2] = "NA" }
local SVC_STATUS = {
    [0x00] = "success", [0x01] = "unknown error", [0x02] = "interface not detected",
    [0x03] = "no UniPro link", [0x04] = "UniPro not down", [0x05] = "UniPro not hibernated",
    [0x06] = "no V_SYS", [0x07] = "V_CHG", [0x08] = "wake busy", [0x09] = "no REFCLK",
    [0x0a] = "releasing", [0x0b] = "no order", [0x0c] = "mailbox set", [0x0d] = "bad mailbox",
    [0x0e] = "operation timeout", [0x0f] = "power monitor not present",
}
local SVC_POWER_RESULT = { [0] = "OK", [2] = "FAIL", [3] = "UniPro not off" }
local SVC_INTF_TYPES = { [0] = "unknown", [1] = "dummy", [2] = "UniPro", [3] = "Greybus" }
local UNIPRO_MODES = {
    [0x01] = "FAST", [0x02] = "SLOW", [0x04] = "FAST_AUTO", [0x05] = "SLOW_AUTO",
    [0x07] = "UNCHANGED", [0x11] = "HIBERNATE", [0x12] = "OFF",
}
local HS_SERIES = { [1] = "A", [2] = "B" }
local AMPLITUDES = { [0] = "none", [1] = "small", [2] = "large" }
local DE_EMPHASIS = { [0] = "none", [1] = "small", [2] = "large" }
local PWRM_RESULTS = {
    [0] = "PWR_OK", [1] = "PWR_LOCAL", [2] = "PWR_REMOTE", [3] = "PWR_BUSY",
    [4] = "PWR_ERROR_CAP", [5] = "PWR_FATAL_ERROR",
}
local L2_TIMER_NAMES = {
    "FC0 protection timeout", "TC0 replay timeout", "AFC0 request timeout",
    "FC1 protection timeout", "TC1 replay timeout", "AFC1 request timeout",
    "Reserved for TC2 [0]", "Reserved for TC2 [1]", "Reserved for TC2 [2]",
    "Reserved for TC3 [0]", "Reserved for TC3 [1]", "Reserved for TC3 [2]",
}
local PWRMON_TYPES = { [1] = "current", [2] = "voltage", [3] = "power" }
local PWRMON_UNITS = { [1] = "µA", [2] = "µV", [3] = "µW" }
local PWRMON_RESULTS = {
    [0] = "OK", [1] = "invalid", [2] = "not supported", [3] = "hardware error",
}
local MAILBOX_VALUES = { [0] = "none", [1] = "AP", [2] = "Greybus" }
local DME_ATTR_NAMES = {
    [0x1520] = "PA_AvailTxDataLanes", [0x1540] = "PA_AvailRxDataLanes",
    [0x1560] = "PA_ActiveTxDataLanes", [0x1568] = "PA_TxGear", [0x1569] = "PA_TxTermination",
    [0x156a] = "PA_HSSeries", [0x1571] = "PA_PWRMode", [0x1580] = "PA_ActiveRxDataLanes",
    [0x1583] = "PA_RxGear", [0x1584] = "PA_RxTermination", [0x3000] = "N_DeviceID",
    [0x3001] = "N_DeviceID_valid", [0x4020] = "T_NumCPorts", [0x4021] = "T_NumTestFeatures",
    [0x4083] = "T_TstSrcIncrement (ES2 init status)", [0x5000] = "DDBL1 Revision",
    [0x5001] = "DDBL1 Level", [0x5002] = "DDBL1 DeviceClass",
    [0x5003] = "DDBL1 ManufacturerID", [0x5004] = "DDBL1 ProductID", [0x5005] = "DDBL1 Length",
    [0x6000] = "GMP vendor id", [0x6001] = "GMP product id", [0x6002] = "serial number (low)",
    [0x6003] = "serial number (high)", [0x6101] = "init status",
}
local DME_RESULTS = {
    [0] = "SUCCESS", [1] = "INVALID_MIB_ATTRIBUTE", [2] = "INVALID_MIB_ATTRIBUTE_VALUE",
    [3] = "READ_ONLY_MIB_ATTRIBUTE", [4] = "WRITE_ONLY_MIB_ATTRIBUTE", [5] = "BAD_INDEX",
    [6] = "LOCKED_MIB_ATTRIBUTE", [7] = "BAD_TEST_FEATURE_INDEX",
    [8] = "PEER_COMMUNICATION_FAILURE", [9] = "BUSY", [10] = "DME_FAILURE",
}
local GPIO_DIRECTIONS = { [0] = "out", [1] = "in" }
local GPIO_IRQ_TYPES = {
    [0x00] = "none", [0x01] = "edge rising", [0x02] = "edge falling", [0x03] = "edge both",
    [0x04] = "level high", [0x08] = "level low",
}
local UART_STOP_BITS = { [0] = "1 stop bit", [1] = "1.5 stop bits", [2] = "2 stop bits" }
local UART_PARITY = { [0] = "none", [1] = "odd", [2] = "even", [3] = "mark", [4] = "space" }
local ON_OFF = { [0] = "off", [1] = "on" }
local SPI_DEVICE_TYPES = { [0] = "spidev", [1] = "SPI NOR", [2] = "modalias" }
local PWM_POLARITY = { [0] = "normal", [1] = "inversed" }
local PSY_TYPES = {
    [0] = "unknown", [1] = "battery", [2] = "UPS", [3] = "mains", [4] = "USB", [5] = "USB DCP",
    [6] = "USB CDP", [7] = "USB ACA",
}
local PSY_PROPERTIES = {
    [0x00] = "status", [0x01] = "charge-type", [0x02] = "health", [0x03] = "present",
    [0x04] = "online", [0x05] = "authentic", [0x06] = "technology", [0x07] = "cycle-count",
    [0x08] = "voltage-max", [0x09] = "voltage-min", [0x0a] = "voltage-max-design",
    [0x0b] = "voltage-min-design", [0x0c] = "voltage-now", [0x0d] = "voltage-avg",
    [0x0e] = "voltage-ocv", [0x0f] = "voltage-boot", [0x10] = "current-max",
    [0x11] = "current-now", [0x12] = "current-avg", [0x13] = "current-boot",
    [0x14] = "power-now", [0x15] = "power-avg", [0x16] = "charge-full-design",
    [0x17] = "charge-empty-design", [0x18] = "charge-full", [0x19] = "charge-empty",
    [0x1a] = "charge-now", [0x1b] = "charge-avg", [0x1c] = "charge-counter",
    [0x1d] = "constant-charge-current", [0x1e] = "constant-charge-current-max",
    [0x1f] = "constant-charge-voltage", [0x20] = "constant-charge-voltage-max",
    [0x21] = "charge-control-limit", [0x22] = "charge-control-limit-max",
    [0x23] = "input-current-limit", [0x24] = "energy-full-design",
    [0x25] = "energy-empty-design", [0x26] = "energy-full", [0x27] = "energy-empty",
    [0x28] = "energy-now", [0x29] = "energy-avg", [0x2a] = "capacity",
    [0x2b] = "capacity-alert-min", [0x2c] = "capacity-alert-max", [0x2d] = "capacity-level",
    [0x2e] = "temp", [0x2f] = "temp-max", [0x30] = "temp-min", [0x31] = "temp-alert-min",
    [0x32] = "temp-alert-max", [0x33] = "temp-ambient", [0x34] = "temp-ambient-alert-min",
    [0x35] = "temp-ambient-alert-max", [0x36] = "time-to-empty-now",
    [0x37] = "time-to-empty-avg", [0x38] = "time-to-full-now", [0x39] = "time-to-full-avg",
    [0x3a] = "type", [0x3b] = "scope", [0x3c] = "charge-term-current", [0x3d] = "calibrate",
}
-- enumerated property values, shown next to GET_PROPERTY / SET_PROPERTY values
local PSY_PROPERTY_VALUES = {
    [0x00] = { [0] = "unknown", [1] = "charging", [2] = "discharging", [3] = "not charging",
               [4] = "full" },
    [0x02] = { [0] = "unknown", [1] = "good", [2] = "overheat", [3] = "dead",
               [4] = "over-voltage", [5] = "failure", [6] = "cold",
               [7] = "watchdog timer expire", [8] = "safety timer expire" },
    [0x06] = { [0] = "unknown", [1] = "NiMH", [2] = "Li-ion", [3] = "Li-poly", [4] = "LiFe",
               [5] = "NiCd", [6] = "LiMn" },
    [0x2d] = { [0] = "unknown", [1] = "critical", [2] = "low", [3] = "normal", [4] = "high",
               [5] = "full" },
    [0x3a] = PSY_TYPES,
    [0x3b] = { [0] = "unknown", [1] = "system", [2] = "device" },
}
local PSY_WRITEABLE = { [0] = "read-only", [1] = "writeable" }
local HID_REPORT_TYPES = { [0] = "input", [1] = "output", [2] = "feature" }

---------------------------------------------------------------------------------------------
-- Fields
---------------------------------------------------------------------------------------------

local gbvp_fields, gb_fields = {}, {}
-- F["gpio.which"] is the field greybus.gpio.which; a misspelt key is a Lua error at once
local F = setmetatable({}, {
    __index = function(_, k) error("greybus.lua: no field '" .. tostring(k) .. "'", 2) end,
})
local FLAG_BITS = {} -- key of a flags field -> keys of its bit fields

local function add_field(list, key, f)
    rawset(F, key, f)
    list[#list + 1] = f
end

local function uint_field(bits)
    return function(key, name, b, vs, mask, desc)
        add_field(gb_fields, key, ProtoField["uint" .. bits]("greybus." .. key, name,
                  b or base.DEC, vs, mask, desc))
    end
end
local U8, U16, U32 = uint_field(8), uint_field(16), uint_field(32)
local function I32(key, name)
    add_field(gb_fields, key, ProtoField.int32("greybus." .. key, name, base.DEC))
end
local function STR(key, name)
    add_field(gb_fields, key, ProtoField.string("greybus." .. key, name))
end
local function BYTES(key, name)
    add_field(gb_fields, key, ProtoField.bytes("greybus." .. key, name))
end
-- a bitmask field and one boolean per bit: bits = { {"sub", "Label", mask}, ... }
local function FLAGS(key, name, width, bits)
    add_field(gb_fields, key, ProtoField["uint" .. width]("greybus." .. key, name, base.HEX))
    local subs = {}
    for _, b in ipairs(bits) do
        local k = key .. "." .. b[1]
        add_field(gb_fields, k, ProtoField.bool("greybus." .. k, b[2], width, nil, b[3]))
        subs[#subs + 1] = k
    end
    FLAG_BITS[key] = subs
end

-- record header
local function G(key, f) add_field(gbvp_fields, key, f) end
G("gbvp.version", ProtoField.uint8("gbvp.version", "Version", base.DEC))
G("gbvp.kind", ProtoField.uint8("gbvp.kind", "Kind", base.DEC, KIND_NAMES))
G("gbvp.dir", ProtoField.uint8("gbvp.dir", "Direction", base.DEC, DIR_NAMES))
G("gbvp.flags", ProtoField.uint8("gbvp.flags", "Flags", base.HEX))
G("gbvp.dropped", ProtoField.bool("gbvp.dropped", "Dropped by the fabric", 8, nil, 0x01))
G("gbvp.src_port", ProtoField.uint8("gbvp.src_port", "Source port", base.DEC))
G("gbvp.dst_port", ProtoField.uint8("gbvp.dst_port", "Destination port", base.DEC))
G("gbvp.src_device_id", ProtoField.uint8("gbvp.src_device_id", "Source DeviceID", base.DEC))
G("gbvp.dst_device_id", ProtoField.uint8("gbvp.dst_device_id", "Destination DeviceID", base.DEC))
G("gbvp.src_cport", ProtoField.uint16("gbvp.src_cport", "Source CPort", base.DEC))
G("gbvp.dst_cport", ProtoField.uint16("gbvp.dst_cport", "Destination CPort", base.DEC))
G("gbvp.hd_cport", ProtoField.uint16("gbvp.hd_cport", "AP hd CPort", base.DEC))
G("gbvp.traffic_class", ProtoField.uint8("gbvp.traffic_class", "Traffic class", base.DEC))
G("gbvp.verdict", ProtoField.uint8("gbvp.verdict", "Verdict", base.DEC, VERDICT_NAMES))
G("gbvp.latency_ps", ProtoField.uint64("gbvp.latency_ps", "Latency (ps)", base.DEC))
G("gbvp.data", ProtoField.bytes("gbvp.data", "Record data"))
-- kind 1: a data-link frame, AFC or NAC on the link of a port
G("gbvp.dl.dir", ProtoField.uint8("gbvp.dl.dir", "Link direction", base.DEC, DL_DIR_NAMES))
G("gbvp.dl.flags", ProtoField.uint8("gbvp.dl.flags", "Flags", base.HEX))
G("gbvp.dl.dropped", ProtoField.bool("gbvp.dl.dropped", "Lost on the line", 8, nil, 0x01))
G("gbvp.dl.crc_error", ProtoField.bool("gbvp.dl.crc_error", "CRC error", 8, nil, 0x02))
G("gbvp.dl.replay", ProtoField.bool("gbvp.dl.replay", "Replay", 8, nil, 0x04))
G("gbvp.dl.port", ProtoField.uint8("gbvp.dl.port", "Port", base.DEC))
G("gbvp.dl.type", ProtoField.uint8("gbvp.dl.type", "Frame", base.DEC, DL_TYPE_NAMES))
G("gbvp.dl.tc", ProtoField.uint8("gbvp.dl.tc", "Traffic class", base.DEC))
G("gbvp.dl.dst_device_id", ProtoField.uint8("gbvp.dl.dst_device_id", "Destination DeviceID",
                                            base.DEC))
G("gbvp.dl.seq", ProtoField.uint32("gbvp.dl.seq", "Sequence number", base.DEC))
G("gbvp.dl.len", ProtoField.uint32("gbvp.dl.len", "Segment payload bytes", base.DEC))
G("gbvp.dl.credits", ProtoField.uint32("gbvp.dl.credits", "Credits granted so far", base.DEC))
G("gbvp.dl.dst_cport", ProtoField.uint16("gbvp.dl.dst_cport", "Destination CPort", base.DEC))
G("gbvp.dl.wire_ps", ProtoField.uint32("gbvp.dl.wire_ps", "Time on the wire (ps)", base.DEC))

-- Greybus header and what the dissector works out
U16("size", "Size")
U16("op_id", "Operation id")
U8("type", "Type", base.HEX, nil, 0x7f)
add_field(gb_fields, "response", ProtoField.bool("greybus.response", "Response", 8,
          { "response", "request" }, 0x80))
U8("result", "Result", base.HEX, RESULT_NAMES)
BYTES("pad", "Pad")
U8("protocol", "Protocol", base.HEX, PROTOCOL_NAMES)
STR("type_name", "Operation")
U8("intf", "Interface", base.DEC)
U16("cport", "Interface CPort", base.DEC)
add_field(gb_fields, "response_in", ProtoField.framenum("greybus.response_in", "Response in",
          base.NONE, frametype.RESPONSE))
add_field(gb_fields, "request_in", ProtoField.framenum("greybus.request_in", "Request in",
          base.NONE, frametype.REQUEST))
add_field(gb_fields, "response_time", ProtoField.relative_time("greybus.response_time",
          "Response time"))
BYTES("payload", "Payload")
BYTES("extra", "Unexpected bytes")
BYTES("beyond_size", "Bytes beyond the size field")
U8("shutdown_phase", "Phase")

-- control
U8("control.major", "Major")
U8("control.minor", "Minor")
U16("control.manifest_size", "Manifest size")
U16("control.cport_id", "CPort")
U8("control.bundle_id", "Bundle")
U8("control.bundle_status", "Status", base.DEC, BUNDLE_PM_STATUS)
U8("control.intf_status", "Status", base.DEC, INTF_PM_STATUS)

-- manifest (GET_MANIFEST response)
U16("manifest.size", "Size")
U8("manifest.major", "Major")
U8("manifest.minor", "Minor")
U16("manifest.desc_size", "Descriptor size")
U8("manifest.desc_type", "Descriptor type", base.DEC, DESC_TYPE_NAMES)
U8("manifest.desc_pad", "Pad", base.HEX)
U8("manifest.vendor_string_id", "Vendor string id")
U8("manifest.product_string_id", "Product string id")
U8("manifest.features", "Features", base.HEX)
U8("manifest.intf_pad", "Pad", base.HEX)
U8("manifest.string_len", "Length")
U8("manifest.string_id", "String id")
STR("manifest.string", "String")
U8("manifest.bundle_id", "Bundle id")
U8("manifest.bundle_class", "Class", base.HEX, CLASS_NAMES)
U16("manifest.bundle_pad", "Pad", base.HEX)
U16("manifest.cport_id", "CPort id")
U8("manifest.cport_bundle", "Bundle")
U8("manifest.cport_protocol", "Protocol", base.HEX, PROTOCOL_NAMES)
BYTES("manifest.desc_data", "Descriptor data")
BYTES("manifest.desc_padding", "Padding")

-- SVC
U8("svc.major", "Major")
U8("svc.minor", "Minor")
U16("svc.endo_id", "Endo id", base.HEX)
U8("svc.ap_intf_id", "AP interface id")
U8("svc.intf_id", "Interface id")
U8("svc.device_id", "DeviceID")
U8("svc.intf1_id", "Interface 1")
U16("svc.cport1_id", "CPort 1")
U8("svc.intf2_id", "Interface 2")
U16("svc.cport2_id", "CPort 2")
U8("svc.dev1_id", "DeviceID 1")
U8("svc.dev2_id", "DeviceID 2")
U8("svc.tc", "Traffic class")
FLAGS("svc.conn_flags", "Flags", 8, {
    { "e2efc", "E2EFC", 0x01 }, { "csd_n", "CSD_n", 0x02 }, { "csv_n", "CSV_n", 0x04 },
})
U16("svc.attr", "Attribute", base.HEX, DME_ATTR_NAMES)
U16("svc.selector", "Selector")
U32("svc.dme_value", "Value", base.HEX)
U16("svc.dme_result", "Result code", base.DEC, DME_RESULTS)
U8("svc.hs_series", "HS series", base.DEC, HS_SERIES)
U8("svc.tx_mode", "TX mode", base.HEX, UNIPRO_MODES)
U8("svc.tx_gear", "TX gear")
U8("svc.tx_nlanes", "TX lanes")
U8("svc.tx_amplitude", "TX amplitude", base.DEC, AMPLITUDES)
U8("svc.tx_hs_equalizer", "TX HS equalizer (de-emphasis)", base.DEC, DE_EMPHASIS)
U8("svc.rx_mode", "RX mode", base.HEX, UNIPRO_MODES)
U8("svc.rx_gear", "RX gear")
U8("svc.rx_nlanes", "RX lanes")
FLAGS("svc.pwrm_flags", "Flags", 8, {
    { "rx_termination", "RX termination", 0x01 }, { "tx_termination", "TX termination", 0x02 },
    { "line_reset", "Line reset", 0x04 }, { "scrambling", "Scrambling", 0x20 },
})
FLAGS("svc.quirks", "Quirks", 32, { { "hsser", "HSSER", 0x00000001 } })
U16("svc.l2timer", "L2 timer value")
U8("svc.pwrm_result", "Result code", base.DEC, PWRM_RESULTS)
U8("svc.rail_count", "Rail count")
U8("svc.rail_id", "Rail id")
STR("svc.rail_name", "Rail name")
U8("svc.status", "Status", base.DEC, SVC_STATUS)
U8("svc.pwrmon_type", "Measurement type", base.DEC, PWRMON_TYPES)
U8("svc.pwrmon_result", "Result", base.DEC, PWRMON_RESULTS)
U32("svc.measurement", "Measurement")
U8("svc.primary_intf_id", "Primary interface id")
U8("svc.intf_count", "Interface count")
FLAGS("svc.inserted_flags", "Flags", 16, { { "no_primary", "No primary interface", 0x0001 } })
U8("svc.power_result", "Result code", base.DEC, SVC_POWER_RESULT)
U8("svc.intf_type", "Interface type", base.DEC, SVC_INTF_TYPES)
U16("svc.mailbox_result", "Result code")
U32("svc.mailbox", "Mailbox", base.HEX, MAILBOX_VALUES)
U8("svc.oops_reason", "Reason")

-- GPIO
U8("gpio.count", "Line count - 1")
U8("gpio.which", "Line")
U8("gpio.direction", "Direction", base.DEC, GPIO_DIRECTIONS)
U8("gpio.value", "Value")
U16("gpio.usec", "Debounce (µs)")
U8("gpio.irq_type", "IRQ type", base.HEX, GPIO_IRQ_TYPES)

-- I2C (functionality bits as Linux I2C_FUNC_*)
FLAGS("i2c.functionality", "Functionality", 32, {
    { "i2c", "I2C", 0x00000001 }, { "10bit_addr", "10-bit addresses", 0x00000002 },
    { "protocol_mangling", "Protocol mangling", 0x00000004 },
    { "smbus_pec", "SMBus PEC", 0x00000008 }, { "nostart", "No start", 0x00000010 },
    { "smbus_quick", "SMBus quick", 0x00010000 },
    { "smbus_read_byte", "SMBus read byte", 0x00020000 },
    { "smbus_write_byte", "SMBus write byte", 0x00040000 },
    { "smbus_read_byte_data", "SMBus read byte data", 0x00080000 },
    { "smbus_write_byte_data", "SMBus write byte data", 0x00100000 },
    { "smbus_read_word_data", "SMBus read word data", 0x00200000 },
    { "smbus_write_word_data", "SMBus write word data", 0x00400000 },
    { "smbus_proc_call", "SMBus process call", 0x00800000 },
    { "smbus_read_block_data", "SMBus read block data", 0x01000000 },
    { "smbus_write_block_data", "SMBus write block data", 0x02000000 },
    { "smbus_read_i2c_block", "SMBus read I2C block", 0x04000000 },
    { "smbus_write_i2c_block", "SMBus write I2C block", 0x08000000 },
})
U16("i2c.op_count", "Operation count")
U16("i2c.addr", "Address", base.HEX)
FLAGS("i2c.flags", "Flags", 16, { { "rd", "Read", 0x0001 }, { "ten", "10-bit address", 0x0010 } })
U16("i2c.size", "Size")
BYTES("i2c.write_data", "Write data")
BYTES("i2c.read_data", "Read data")

-- UART
U16("uart.size", "Size")
BYTES("uart.data", "Data")
FLAGS("uart.recv_flags", "Flags", 8, {
    { "framing", "Framing error", 0x01 }, { "parity", "Parity error", 0x02 },
    { "overrun", "Overrun", 0x04 }, { "break", "Break", 0x08 },
})
U32("uart.rate", "Rate (baud)")
U8("uart.format", "Format", base.DEC, UART_STOP_BITS)
U8("uart.parity", "Parity", base.DEC, UART_PARITY)
U8("uart.data_bits", "Data bits")
FLAGS("uart.flow_control", "Flow control", 8, { { "auto_rtscts", "Auto RTS/CTS", 0x01 } })
FLAGS("uart.control", "Control lines", 8, { { "dtr", "DTR", 0x01 }, { "rts", "RTS", 0x02 } })
U8("uart.break_state", "Break", base.DEC, ON_OFF)
FLAGS("uart.serial_state", "Serial state", 8, {
    { "dcd", "DCD", 0x01 }, { "dsr", "DSR", 0x02 }, { "ri", "RI", 0x04 },
})
U16("uart.credits", "Credits")
FLAGS("uart.flush", "Flush", 8, { { "transmitter", "Transmitter", 0x01 },
                                   { "receiver", "Receiver", 0x02 } })

-- SPI
local SPI_MODE_BITS = {
    { "cpha", "CPHA", 0x01 }, { "cpol", "CPOL", 0x02 }, { "cs_high", "CS high", 0x04 },
    { "lsb_first", "LSB first", 0x08 }, { "3wire", "3-wire", 0x10 }, { "loop", "Loop", 0x20 },
    { "no_cs", "No CS", 0x40 }, { "ready", "Ready", 0x80 },
}
U32("spi.bpw_mask", "Bits per word mask", base.HEX)
U32("spi.min_speed_hz", "Minimum speed (Hz)")
U32("spi.max_speed_hz", "Maximum speed (Hz)")
FLAGS("spi.mode", "Mode", 16, SPI_MODE_BITS)
FLAGS("spi.flags", "Flags", 16, {
    { "half_duplex", "Half duplex", 0x0001 }, { "no_rx", "No RX", 0x0002 },
    { "no_tx", "No TX", 0x0004 },
})
U8("spi.num_chipselect", "Chip selects")
U8("spi.chip_select", "Chip select")
U8("spi.bits_per_word", "Bits per word")
U8("spi.device_type", "Device type", base.DEC, SPI_DEVICE_TYPES)
STR("spi.name", "Name")
FLAGS("spi.xfer_mode", "Mode", 8, SPI_MODE_BITS)
U16("spi.count", "Transfer count")
U32("spi.speed_hz", "Speed (Hz)")
U32("spi.len", "Length")
U16("spi.delay_usecs", "Delay (µs)")
U8("spi.cs_change", "CS change")
FLAGS("spi.xfer_flags", "Transfer flags", 8, {
    { "read", "Read", 0x01 }, { "write", "Write", 0x02 }, { "inprogress", "In progress", 0x04 },
})
BYTES("spi.write_data", "Write data")
BYTES("spi.read_data", "Read data")

-- PWM
U8("pwm.count", "PWM count - 1")
U8("pwm.which", "PWM")
U32("pwm.duty", "Duty (ns)")
U32("pwm.period", "Period (ns)")
U8("pwm.polarity", "Polarity", base.DEC, PWM_POLARITY)

-- loopback
U32("loopback.len", "Length")
U32("loopback.reserved0", "Reserved 0")
U32("loopback.reserved1", "Reserved 1")
BYTES("loopback.data", "Data")

-- power supply
U8("psy.count", "Supplies")
U8("psy.id", "Supply")
STR("psy.manufacturer", "Manufacturer")
STR("psy.model", "Model")
STR("psy.serial", "Serial number")
U16("psy.type", "Type", base.DEC, PSY_TYPES)
U8("psy.properties_count", "Properties")
U8("psy.property", "Property", base.HEX, PSY_PROPERTIES)
U8("psy.writeable", "Writeable", base.DEC, PSY_WRITEABLE)
I32("psy.value", "Value")
FLAGS("psy.event", "Event", 8, { { "update", "Update", 0x01 } })

-- lights
U8("lights.count", "Lights")
U8("lights.light_id", "Light")
U8("lights.channel_id", "Channel")
U8("lights.channel_count", "Channels")
STR("lights.name", "Name")
U8("lights.max_brightness", "Maximum brightness")
FLAGS("lights.channel_flags", "Flags", 32, {
    { "multicolor", "Multicolor", 0x00000001 }, { "fader", "Fader", 0x00000002 },
    { "blink", "Blink", 0x00000004 },
})
U32("lights.color", "Color", base.HEX)
STR("lights.color_name", "Color name")
FLAGS("lights.mode", "Mode", 32, {
    { "battery", "Battery", 0x00000001 }, { "power", "Power", 0x00000002 },
    { "wireless", "Wireless", 0x00000004 }, { "bluetooth", "Bluetooth", 0x00000008 },
    { "keyboard", "Keyboard", 0x00000010 }, { "buttons", "Buttons", 0x00000020 },
    { "notification", "Notification", 0x00000040 }, { "attention", "Attention", 0x00000080 },
    { "flash", "Flash", 0x00000100 }, { "torch", "Torch", 0x00000200 },
    { "indicator", "Indicator", 0x00000400 },
})
STR("lights.mode_name", "Mode name")
U32("lights.intensity_min", "Minimum intensity (µA)")
U32("lights.intensity_max", "Maximum intensity (µA)")
U32("lights.intensity_step", "Intensity step (µA)")
U32("lights.timeout_min", "Minimum timeout (µs)")
U32("lights.timeout_max", "Maximum timeout (µs)")
U32("lights.timeout_step", "Timeout step (µs)")
U8("lights.brightness", "Brightness")
U16("lights.time_on_ms", "Time on (ms)")
U16("lights.time_off_ms", "Time off (ms)")
U8("lights.fade_in", "Fade in")
U8("lights.fade_out", "Fade out")
FLAGS("lights.event", "Event", 8, { { "light_config", "Light configuration", 0x01 } })
U32("lights.intensity", "Intensity (µA)")
U8("lights.strobe", "Strobe", base.DEC, ON_OFF)
U32("lights.timeout", "Timeout (µs)")
FLAGS("lights.fault", "Fault", 32, {
    { "timeout", "Timeout", 0x00000001 }, { "over_temperature", "Over temperature", 0x00000002 },
    { "short_circuit", "Short circuit", 0x00000004 },
    { "over_current", "Over current", 0x00000008 }, { "indicator", "Indicator", 0x00000010 },
    { "under_voltage", "Under voltage", 0x00000020 },
    { "input_voltage", "Input voltage", 0x00000040 },
    { "led_over_temperature", "LED over temperature", 0x00000080 },
})

-- HID
U8("hid.length", "Descriptor length")
U16("hid.report_desc_length", "Report descriptor length")
U16("hid.bcd_hid", "HID version", base.HEX)
U16("hid.product_id", "Product id", base.HEX)
U16("hid.vendor_id", "Vendor id", base.HEX)
U8("hid.country_code", "Country code")
BYTES("hid.report_desc", "Report descriptor")
U8("hid.report_type", "Report type", base.DEC, HID_REPORT_TYPES)
U8("hid.report_id", "Report id")
BYTES("hid.report", "Report")

-- log, raw
U16("log.len", "Length")
STR("log.msg", "Message")
U32("raw.len", "Length")
BYTES("raw.data", "Data")

gbvp.fields = gbvp_fields
gb.fields = gb_fields

---------------------------------------------------------------------------------------------
-- Expert infos
---------------------------------------------------------------------------------------------

local EX = {
    record_short = ProtoExpert.new("gbvp.short_record", "Record shorter than its 24-byte header",
        expert.group.MALFORMED, expert.severity.ERROR),
    record_bad = ProtoExpert.new("gbvp.bad_record", "Unknown record version or kind",
        expert.group.MALFORMED, expert.severity.ERROR),
    dropped = ProtoExpert.new("gbvp.dropped_message", "Message dropped by the fabric",
        expert.group.SEQUENCE, expert.severity.WARN),
    header_short = ProtoExpert.new("greybus.short_header",
        "Message shorter than the 8-byte Greybus header", expert.group.MALFORMED,
        expert.severity.ERROR),
    size_mismatch = ProtoExpert.new("greybus.size_mismatch",
        "Size field disagrees with the record length", expert.group.MALFORMED,
        expert.severity.WARN),
    unknown_type = ProtoExpert.new("greybus.unknown_type",
        "Operation type unknown for this protocol", expert.group.PROTOCOL, expert.severity.WARN),
    result_error = ProtoExpert.new("greybus.result_error", "Response result is not success",
        expert.group.RESPONSE_CODE, expert.severity.WARN),
    request_result = ProtoExpert.new("greybus.request_result",
        "Request with a non-zero result byte", expert.group.PROTOCOL, expert.severity.WARN),
    response_id0 = ProtoExpert.new("greybus.response_id0",
        "Response with operation id 0 (the AP drops it)", expert.group.PROTOCOL,
        expert.severity.WARN),
    unknown_conn = ProtoExpert.new("greybus.unknown_connection",
        "Protocol of this CPort not known (no GET_MANIFEST response naming it seen yet)",
        expert.group.UNDECODED, expert.severity.NOTE),
    no_request = ProtoExpert.new("greybus.no_request",
        "No request for this response earlier in the capture", expert.group.SEQUENCE,
        expert.severity.NOTE),
    payload_short = ProtoExpert.new("greybus.payload_short", "Payload shorter than its layout",
        expert.group.MALFORMED, expert.severity.WARN),
    payload_long = ProtoExpert.new("greybus.payload_long", "Payload longer than its layout",
        expert.group.MALFORMED, expert.severity.WARN),
    status = ProtoExpert.new("greybus.status_error", "Operation status reports a failure",
        expert.group.RESPONSE_CODE, expert.severity.NOTE),
    manifest = ProtoExpert.new("greybus.manifest_error", "Manifest does not parse",
        expert.group.MALFORMED, expert.severity.WARN),
}
gbvp.experts = { EX.record_short, EX.record_bad, EX.dropped }
gb.experts = {
    EX.header_short, EX.size_mismatch, EX.unknown_type, EX.result_error, EX.request_result,
    EX.response_id0, EX.unknown_conn, EX.no_request, EX.payload_short, EX.payload_long,
    EX.status, EX.manifest,
}

---------------------------------------------------------------------------------------------
-- Helpers
---------------------------------------------------------------------------------------------

local function bit_set(v, mask) return math.floor(v / mask) % 2 == 1 end
local function fmt(...) return string.format(...) end

-- A NUL-padded byte string up to its first NUL.
local function cstring(range)
    local s = range:raw()
    local z = s:find("\0", 1, true)
    return z and s:sub(1, z - 1) or s
end

-- Reads a payload field by field. Every read checks the length; the first read past the end
-- adds one "payload too short" expert info and turns every later read into a no-op returning
-- nil, so a layout function is written for the well-formed case.
local Reader = {}
Reader.__index = Reader

-- reads tvb from off up to stop; offsets in messages count from base (the payload's start)
local function new_reader(tvb, off, stop, tree, ctx, base)
    return setmetatable({ tvb = tvb, off = off, stop = stop, tree = tree, ctx = ctx, ok = true,
                          base = base or off }, Reader)
end

function Reader:left() return self.stop - self.off end

function Reader:need(n)
    if not self.ok then return false end
    if n > self:left() then
        self.ok = false
        self.tree:add_proto_expert_info(EX.payload_short,
            fmt("Payload too short: %d byte(s) needed at offset %d, %d left", n,
                self.off - self.base, self:left()))
        return false
    end
    return true
end

function Reader:take(n)
    local r = self.tvb(self.off, n)
    self.off = self.off + n
    return r
end

local function le_uint(r) return r:le_uint() end
local function le_int(r) return r:le_int() end

function Reader:num(key, n, get)
    if not self:need(n) then return nil end
    local r = self:take(n)
    return get(r), self.tree:add_le(F[key], r)
end
function Reader:u8(key) return self:num(key, 1, le_uint) end
function Reader:u16(key) return self:num(key, 2, le_uint) end
function Reader:u32(key) return self:num(key, 4, le_uint) end
function Reader:i32(key) return self:num(key, 4, le_int) end

-- a bitmask field (declared with FLAGS) with its bits below it
function Reader:flags(key, n)
    if not self:need(n) then return nil end
    local r = self:take(n)
    local item = self.tree:add_le(F[key], r)
    for _, k in ipairs(FLAG_BITS[key]) do item:add_le(F[k], r) end
    return r:le_uint(), item
end

-- n bytes (all that is left when n is nil); nothing is added for 0 bytes
function Reader:bytes(key, n)
    if not self.ok then return nil end
    n = n or self:left()
    if n == 0 then return nil end
    if not self:need(n) then return nil end
    local r = self:take(n)
    return r, self.tree:add(F[key], r)
end

-- a fixed-size NUL-padded string
function Reader:str(key, n)
    if not self:need(n) then return nil end
    if n == 0 then return "" end
    local r = self:take(n)
    local s = cstring(r)
    return s, self.tree:add(F[key], r, s)
end

-- the next n bytes as a subtree read by a new reader (nil if they are not there)
function Reader:child(n, label)
    if n == 0 or not self:need(n) then return nil end
    local start = self.off
    local sub = self.tree:add(self:take(n), label)
    return new_reader(self.tvb, start, start + n, sub, self.ctx, self.base), sub
end

-- after a layout: bytes it did not use
function Reader:finish()
    if self.ok and self:left() > 0 then
        local n = self:left()
        local item = self.tree:add(F["extra"], self:take(n))
        item:add_proto_expert_info(EX.payload_long,
            fmt("Payload longer than its layout: %d byte(s) left over", n))
    end
end

local function status_check(v, item)
    if v and v ~= 0 and item then item:add_proto_expert_info(EX.status) end
end

---------------------------------------------------------------------------------------------
-- What is learned from the capture (first pass, in packet order)
---------------------------------------------------------------------------------------------

local S

local function reset_state()
    S = {
        ap_intf = 1,    -- the AP's interface id (SVC_HELLO); 1 in gbvp
        manifests = {}, -- intf -> { frame, cports = { [cport] = {protocol, bundle} }, bundles }
        modules = {},   -- primary intf -> interface count (MODULE_INSERTED)
        hd = {},        -- AP hd CPort -> { intf, cport, frame } (CONN_CREATE)
        peers = {},     -- "intf:cport" -> { intf, cport } for interface <-> interface connections
        pending = {},   -- pairing key -> request frame
        frames = {},    -- frame number -> what the first pass found (see dissect_message)
    }
end
reset_state()

local function forget_interfaces(first, count)
    for i = first, first + math.max(count, 1) - 1 do S.manifests[i] = nil end
end

---------------------------------------------------------------------------------------------
-- Payload layouts: one function per layout, called as layout(reader, ctx). ctx.save is kept
-- with a request's frame; a response's ctx.req is its request's ctx.save (or nil).
---------------------------------------------------------------------------------------------

local L = {}

function L.empty(r) end
function L.shutdown(r) r:u8("shutdown_phase") end

-- control
function L.control_version(r) r:u8("control.major"); r:u8("control.minor") end
function L.control_manifest_size(r) r:u16("control.manifest_size") end
function L.control_cport(r) r:u16("control.cport_id") end
function L.control_bundle(r) r:u8("control.bundle_id") end
function L.control_bundle_status(r) status_check(r:u8("control.bundle_status")) end
function L.control_intf_status(r) status_check(r:u8("control.intf_status")) end

local function manifest_descriptor(d, dtype, m)
    local dsize = d:u16("manifest.desc_size")
    d:u8("manifest.desc_type"); d:u8("manifest.desc_pad")
    if dtype == 1 then
        local v = d:u8("manifest.vendor_string_id")
        local p = d:u8("manifest.product_string_id")
        d:u8("manifest.features"); d:u8("manifest.intf_pad")
        if p then d.tree:append_text(fmt(": vendor string %d, product string %d", v, p)) end
    elseif dtype == 2 then
        local len = d:u8("manifest.string_len")
        local id = d:u8("manifest.string_id")
        local s = len and d:str("manifest.string", len)
        if s then d.tree:append_text(fmt(" %d: \"%s\"", id, s)) end
        d:bytes("manifest.desc_padding")
        -- the kernel's identify_descriptor() wants the padding too, not only the string
        local need = len and math.floor((6 + len + 3) / 4) * 4
        if s and dsize < need then
            d.tree:add_proto_expert_info(EX.manifest,
                fmt("String descriptor of %d bytes, the kernel needs %d (6 + length, padded "
                    .. "to 4)", dsize, need))
        end
    elseif dtype == 3 then
        local id = d:u8("manifest.bundle_id")
        local class = d:u8("manifest.bundle_class")
        d:u16("manifest.bundle_pad")
        if class then
            m.bundles[id] = class
            d.tree:append_text(fmt(" %d: class %s (0x%02x)", id, CLASS_NAMES[class] or "unknown",
                                   class))
        end
    elseif dtype == 4 then
        local id = d:u16("manifest.cport_id")
        local bundle = d:u8("manifest.cport_bundle")
        local proto = d:u8("manifest.cport_protocol")
        if proto then
            m.cports[id] = { protocol = proto, bundle = bundle }
            m.ncports = m.ncports + 1
            d.tree:append_text(fmt(" %d: bundle %d, protocol %s (0x%02x)", id, bundle,
                                   PROTOCOL_NAMES[proto] or "unknown", proto))
        end
    else
        d.tree:add_proto_expert_info(EX.manifest, fmt("Unknown descriptor type %d", dtype))
    end
    d:bytes("manifest.desc_data") -- what the kernel ignores ("descriptor size mismatch")
end

function L.manifest(r, ctx)
    if not r:need(4) then return end
    local m, mt = r:child(r:left(), "Manifest")
    local size = m:u16("manifest.size")
    local major, minor = m:u8("manifest.major"), m:u8("manifest.minor")
    mt:append_text(fmt(" %d.%d, %d bytes", major, minor, size))
    if size ~= m.stop - m.off + 4 then
        mt:add_proto_expert_info(EX.manifest, fmt("Manifest header says %d bytes, it has %d",
                                                  size, m.stop - m.off + 4))
    end
    local learned = { cports = {}, bundles = {}, ncports = 0 }
    while m:left() > 0 do
        local left = m:left()
        local dsize = left >= 2 and m.tvb(m.off, 2):le_uint() or 0
        local dtype = left >= 3 and m.tvb(m.off + 2, 1):uint() or 0
        if left < 4 or dsize < 4 or dsize > left then
            local _, it = m:bytes("manifest.desc_data")
            local why = (left >= 4 and dsize < 4)
                and fmt("Descriptor size %d is smaller than its 4-byte header", dsize)
                or fmt("Descriptor of %d bytes does not fit the %d left", dsize, left)
            it:add_proto_expert_info(EX.manifest, why)
            break
        end
        local d = m:child(dsize, (DESC_TYPE_NAMES[dtype] or "Unknown") .. " descriptor")
        manifest_descriptor(d, dtype, learned)
    end
    ctx.summary = fmt("%d CPort(s)", learned.ncports)
    if ctx.first and ctx.conn.intf then
        learned.frame = ctx.frame
        S.manifests[ctx.conn.intf] = learned
    end
end

-- SVC
function L.svc_version(r) r:u8("svc.major"); r:u8("svc.minor") end
function L.svc_hello(r, ctx)
    r:u16("svc.endo_id")
    local ap = r:u8("svc.ap_intf_id")
    if ap and ctx.first then S.ap_intf = ap end
end
function L.svc_intf(r) r:u8("svc.intf_id") end
function L.svc_intf_device_id(r) r:u8("svc.intf_id"); r:u8("svc.device_id") end
function L.svc_conn_destroy(r, ctx)
    local i1, c1 = r:u8("svc.intf1_id"), r:u16("svc.cport1_id")
    local i2, c2 = r:u8("svc.intf2_id"), r:u16("svc.cport2_id")
    if c2 then ctx.summary = fmt("%d:%d ↔ %d:%d", i1, c1, i2, c2) end
    return i1, c1, i2, c2
end
function L.svc_conn_create(r, ctx)
    local i1, c1, i2, c2 = L.svc_conn_destroy(r, ctx)
    r:u8("svc.tc")
    r:flags("svc.conn_flags", 1)
    if not (c2 and ctx.first) then return end
    if i1 == S.ap_intf then
        S.hd[c1] = { intf = i2, cport = c2, frame = ctx.frame }
    elseif i2 == S.ap_intf then
        S.hd[c2] = { intf = i1, cport = c1, frame = ctx.frame }
    else
        S.peers[i1 .. ":" .. c1] = { intf = i2, cport = c2 }
        S.peers[i2 .. ":" .. c2] = { intf = i1, cport = c1 }
    end
end
function L.svc_dme_get(r, ctx)
    r:u8("svc.intf_id")
    ctx.save.attr = r:u16("svc.attr")
    r:u16("svc.selector")
end
function L.svc_dme_set(r, ctx)
    L.svc_dme_get(r, ctx)
    r:u32("svc.dme_value")
end
function L.svc_dme_get_response(r, ctx)
    status_check(r:u16("svc.dme_result"))
    local v, item = r:u32("svc.dme_value")
    local attr = ctx.req and ctx.req.attr
    if v and attr then
        item:append_text(fmt(" (%s)", DME_ATTR_NAMES[attr] or fmt("attribute 0x%04x", attr)))
        if attr == 0x6101 then
            item:append_text(fmt(", init status code 0x%02x", math.floor(v / 0x1000000)))
        end
    end
end
function L.svc_dme_set_response(r) status_check(r:u16("svc.dme_result")) end
function L.svc_route_create(r, ctx)
    local i1, d1 = r:u8("svc.intf1_id"), r:u8("svc.dev1_id")
    local i2, d2 = r:u8("svc.intf2_id"), r:u8("svc.dev2_id")
    if d2 then ctx.summary = fmt("%d (dev %d) ↔ %d (dev %d)", i1, d1, i2, d2) end
end
function L.svc_route_destroy(r) r:u8("svc.intf1_id"); r:u8("svc.intf2_id") end
local function l2_timers(r, label)
    local c = r:child(24, label)
    if not c then return end
    for _, name in ipairs(L2_TIMER_NAMES) do
        local v, item = c:u16("svc.l2timer")
        item:set_text(fmt("%s: %d", name, v))
    end
end
function L.svc_set_pwrm(r, ctx)
    local intf = r:u8("svc.intf_id")
    r:u8("svc.hs_series")
    local tx = r:u8("svc.tx_mode")
    r:u8("svc.tx_gear"); r:u8("svc.tx_nlanes"); r:u8("svc.tx_amplitude")
    r:u8("svc.tx_hs_equalizer")
    r:u8("svc.rx_mode"); r:u8("svc.rx_gear"); r:u8("svc.rx_nlanes")
    r:flags("svc.pwrm_flags", 1)
    r:flags("svc.quirks", 4)
    l2_timers(r, "Local L2 timer data")
    l2_timers(r, "Remote L2 timer data")
    if tx then
        ctx.summary = fmt("interface %d, %s", intf, UNIPRO_MODES[tx] or fmt("mode 0x%02x", tx))
    end
end
function L.svc_pwrm_response(r) r:u8("svc.pwrm_result") end
function L.svc_rail_count(r) r:u8("svc.rail_count") end
function L.svc_rail_names(r)
    status_check(r:u8("svc.status"))
    while r.ok and r:left() >= 32 do r:str("svc.rail_name", 32) end
end
function L.svc_pwrmon_sample(r, ctx)
    r:u8("svc.rail_id")
    ctx.save.pwrmon_type = r:u8("svc.pwrmon_type")
end
function L.svc_pwrmon_intf_sample(r, ctx)
    r:u8("svc.intf_id")
    ctx.save.pwrmon_type = r:u8("svc.pwrmon_type")
end
function L.svc_pwrmon_sample_response(r, ctx)
    status_check(r:u8("svc.pwrmon_result"))
    local v, item = r:u32("svc.measurement")
    local unit = ctx.req and PWRMON_UNITS[ctx.req.pwrmon_type]
    if v and unit then item:append_text(" " .. unit) end
end
function L.svc_module_inserted(r, ctx)
    local primary, count = r:u8("svc.primary_intf_id"), r:u8("svc.intf_count")
    r:flags("svc.inserted_flags", 2)
    if count then
        ctx.summary = fmt("interface %d, %d interface(s)", primary, count)
        if ctx.first then
            S.modules[primary] = count
            forget_interfaces(primary, count)
        end
    end
end
function L.svc_module_removed(r, ctx)
    local primary = r:u8("svc.primary_intf_id")
    if primary then
        ctx.summary = fmt("interface %d", primary)
        if ctx.first then forget_interfaces(primary, S.modules[primary] or 1) end
    end
end
function L.svc_power_response(r) status_check(r:u8("svc.power_result")) end
function L.svc_activate_response(r)
    status_check(r:u8("svc.status"))
    r:u8("svc.intf_type")
end
function L.svc_status(r) status_check(r:u8("svc.status")) end
function L.svc_mailbox_event(r)
    r:u8("svc.intf_id"); r:u16("svc.mailbox_result"); r:u32("svc.mailbox")
end
function L.svc_oops(r) r:u8("svc.intf_id"); r:u8("svc.oops_reason") end

-- GPIO
local function line_note(item, ctx)
    if item and ctx.req and ctx.req.which then
        item:append_text(fmt(" (line %d)", ctx.req.which))
    end
end
function L.gpio_count(r)
    local v, item = r:u8("gpio.count")
    if v then item:append_text(fmt(" (%d lines)", v + 1)) end
end
function L.gpio_which(r, ctx) ctx.save.which = r:u8("gpio.which") end
function L.gpio_which_value(r) r:u8("gpio.which"); r:u8("gpio.value") end
function L.gpio_debounce(r) r:u8("gpio.which"); r:u16("gpio.usec") end
function L.gpio_irq_type(r) r:u8("gpio.which"); r:u8("gpio.irq_type") end
function L.gpio_direction(r, ctx) local _, item = r:u8("gpio.direction"); line_note(item, ctx) end
function L.gpio_value(r, ctx) local _, item = r:u8("gpio.value"); line_note(item, ctx) end

-- I2C
function L.i2c_functionality(r) r:flags("i2c.functionality", 4) end
function L.i2c_transfer(r, ctx)
    local n = r:u16("i2c.op_count")
    if not n then return end
    local reads, writes = {}, {}
    for i = 1, n do
        local c = r:child(6, fmt("Operation %d", i))
        if not c then return end
        local addr, flags, size = c:u16("i2c.addr"), c:flags("i2c.flags", 2), c:u16("i2c.size")
        local rd = bit_set(flags, 0x0001)
        c.tree:append_text(fmt(": %s 0x%02x, %d byte(s)", rd and "read from" or "write to",
                               addr, size))
        local list = rd and reads or writes
        list[#list + 1] = { addr = addr, size = size }
    end
    for _, w in ipairs(writes) do
        local _, item = r:bytes("i2c.write_data", w.size)
        if item then item:append_text(fmt(" (to 0x%02x)", w.addr)) end
    end
    ctx.save.reads = reads
end
function L.i2c_read(r, ctx)
    local reads = ctx.req and ctx.req.reads
    if not reads then r:bytes("i2c.read_data"); return end
    for _, rd in ipairs(reads) do
        local _, item = r:bytes("i2c.read_data", rd.size)
        if item then item:append_text(fmt(" (from 0x%02x)", rd.addr)) end
    end
end

-- UART
function L.uart_send_data(r)
    local n = r:u16("uart.size")
    r:bytes("uart.data", n)
end
function L.uart_receive_data(r)
    local n = r:u16("uart.size")
    r:flags("uart.recv_flags", 1)
    r:bytes("uart.data", n)
end
function L.uart_line_coding(r)
    r:u32("uart.rate"); r:u8("uart.format"); r:u8("uart.parity"); r:u8("uart.data_bits")
    r:flags("uart.flow_control", 1)
end
function L.uart_control(r) r:flags("uart.control", 1) end
function L.uart_break(r) r:u8("uart.break_state") end
function L.uart_serial_state(r) r:flags("uart.serial_state", 1) end
function L.uart_credits(r) r:u16("uart.credits") end
function L.uart_flush(r) r:flags("uart.flush", 1) end

-- SPI
function L.spi_master_config(r)
    r:u32("spi.bpw_mask"); r:u32("spi.min_speed_hz"); r:u32("spi.max_speed_hz")
    r:flags("spi.mode", 2); r:flags("spi.flags", 2); r:u8("spi.num_chipselect")
end
function L.spi_chip_select(r) r:u8("spi.chip_select") end
function L.spi_device_config(r)
    r:flags("spi.mode", 2); r:u8("spi.bits_per_word"); r:u32("spi.max_speed_hz")
    r:u8("spi.device_type"); r:str("spi.name", 32)
end
function L.spi_transfer(r, ctx)
    r:u8("spi.chip_select")
    r:flags("spi.xfer_mode", 1)
    local n = r:u16("spi.count")
    if not n then return end
    local xfers = {}
    for i = 1, n do
        local c = r:child(13, fmt("Transfer %d", i))
        if not c then return end
        c:u32("spi.speed_hz")
        local len = c:u32("spi.len")
        c:u16("spi.delay_usecs"); c:u8("spi.cs_change"); c:u8("spi.bits_per_word")
        local flags = c:flags("spi.xfer_flags", 1)
        local rd, wr = bit_set(flags, 0x01), bit_set(flags, 0x02)
        c.tree:append_text(fmt(": %d byte(s)%s%s", len, wr and ", write" or "",
                               rd and ", read" or ""))
        xfers[i] = { len = len, read = rd, write = wr }
    end
    local reads = {}
    for i, x in ipairs(xfers) do
        if x.write then
            local _, item = r:bytes("spi.write_data", x.len)
            if item then item:append_text(fmt(" (transfer %d)", i)) end
        end
        if x.read then reads[#reads + 1] = { index = i, len = x.len } end
    end
    ctx.save.reads = reads
end
function L.spi_read(r, ctx)
    local reads = ctx.req and ctx.req.reads
    if not reads then r:bytes("spi.read_data"); return end
    for _, x in ipairs(reads) do
        local _, item = r:bytes("spi.read_data", x.len)
        if item then item:append_text(fmt(" (transfer %d)", x.index)) end
    end
end

-- PWM
function L.pwm_count(r)
    local v, item = r:u8("pwm.count")
    if v then item:append_text(fmt(" (%d PWMs)", v + 1)) end
end
function L.pwm_which(r) r:u8("pwm.which") end
function L.pwm_config(r) r:u8("pwm.which"); r:u32("pwm.duty"); r:u32("pwm.period") end
function L.pwm_polarity(r) r:u8("pwm.which"); r:u8("pwm.polarity") end

-- loopback
function L.loopback_transfer(r)
    local n = r:u32("loopback.len")
    r:u32("loopback.reserved0"); r:u32("loopback.reserved1")
    r:bytes("loopback.data", n)
end

-- power supply
function L.psy_count(r) r:u8("psy.count") end
function L.psy_id(r) r:u8("psy.id") end
function L.psy_description(r)
    r:str("psy.manufacturer", 32); r:str("psy.model", 32); r:str("psy.serial", 32)
    r:u16("psy.type"); r:u8("psy.properties_count")
end
function L.psy_prop_descriptors(r)
    local n = r:u8("psy.properties_count")
    for i = 1, n or 0 do
        local c = r:child(2, fmt("Property %d", i))
        if not c then return end
        local p, w = c:u8("psy.property"), c:u8("psy.writeable")
        c.tree:append_text(fmt(": %s, %s", PSY_PROPERTIES[p] or fmt("0x%02x", p),
                               PSY_WRITEABLE[w] or tostring(w)))
    end
end
local function psy_value(r, prop)
    local v, item = r:i32("psy.value")
    local names = prop and PSY_PROPERTY_VALUES[prop]
    if v and prop then
        item:append_text(fmt(" (%s%s)", PSY_PROPERTIES[prop] or fmt("property 0x%02x", prop),
                             names and names[v] and (": " .. names[v]) or ""))
    end
end
function L.psy_get_property(r, ctx) r:u8("psy.id"); ctx.save.prop = r:u8("psy.property") end
function L.psy_property_value(r, ctx) psy_value(r, ctx.req and ctx.req.prop) end
function L.psy_set_property(r)
    r:u8("psy.id")
    psy_value(r, r:u8("psy.property"))
end
function L.psy_event(r) r:u8("psy.id"); r:flags("psy.event", 1) end

-- lights
function L.lights_count(r) r:u8("lights.count") end
function L.lights_light(r) r:u8("lights.light_id") end
function L.lights_light_config(r) r:u8("lights.channel_count"); r:str("lights.name", 32) end
function L.lights_channel(r) r:u8("lights.light_id"); r:u8("lights.channel_id") end
function L.lights_channel_config(r)
    r:u8("lights.max_brightness"); r:flags("lights.channel_flags", 4); r:u32("lights.color")
    r:str("lights.color_name", 32); r:flags("lights.mode", 4); r:str("lights.mode_name", 32)
end
function L.lights_flash_config(r)
    r:u32("lights.intensity_min"); r:u32("lights.intensity_max"); r:u32("lights.intensity_step")
    r:u32("lights.timeout_min"); r:u32("lights.timeout_max"); r:u32("lights.timeout_step")
end
function L.lights_brightness(r) L.lights_channel(r); r:u8("lights.brightness") end
function L.lights_blink(r)
    L.lights_channel(r); r:u16("lights.time_on_ms"); r:u16("lights.time_off_ms")
end
function L.lights_color(r) L.lights_channel(r); r:u32("lights.color") end
function L.lights_fade(r) L.lights_channel(r); r:u8("lights.fade_in"); r:u8("lights.fade_out") end
function L.lights_event(r) r:u8("lights.light_id"); r:flags("lights.event", 1) end
function L.lights_intensity(r) L.lights_channel(r); r:u32("lights.intensity") end
function L.lights_strobe(r) L.lights_channel(r); r:u8("lights.strobe") end
function L.lights_timeout(r) L.lights_channel(r); r:u32("lights.timeout") end
function L.lights_fault(r) r:flags("lights.fault", 4) end

-- HID
function L.hid_desc(r)
    r:u8("hid.length"); r:u16("hid.report_desc_length"); r:u16("hid.bcd_hid")
    r:u16("hid.product_id"); r:u16("hid.vendor_id"); r:u8("hid.country_code")
end
function L.hid_report_desc(r) r:bytes("hid.report_desc") end
function L.hid_get_report(r) r:u8("hid.report_type"); r:u8("hid.report_id") end
function L.hid_set_report(r) L.hid_get_report(r); r:bytes("hid.report") end
function L.hid_report(r) r:bytes("hid.report") end

-- log, raw
function L.log_send(r, ctx)
    local n = r:u16("log.len")
    local s = n and r:str("log.msg", n)
    if s then ctx.summary = fmt("\"%s\"", (s:gsub("%c", " "))) end
end
function L.raw_send(r)
    local n = r:u32("raw.len")
    r:bytes("raw.data", n)
end

---------------------------------------------------------------------------------------------
-- Protocols: type names and the layout of each request and response. A named type without
-- a layout shows its payload as bytes.
---------------------------------------------------------------------------------------------

local PROTOCOLS = {
    [0x00] = { types = CONTROL_TYPES,
        req = { [0x01] = L.control_version, [0x03] = L.empty, [0x04] = L.empty,
                [0x05] = L.control_cport, [0x06] = L.control_cport, [0x0b] = L.control_bundle,
                [0x0c] = L.control_cport, [0x0e] = L.empty, [0x0f] = L.control_bundle,
                [0x10] = L.control_bundle, [0x11] = L.control_bundle, [0x12] = L.control_bundle,
                [0x13] = L.empty, [0x14] = L.empty, [0x15] = L.empty },
        resp = { [0x01] = L.control_version, [0x03] = L.control_manifest_size,
                 [0x04] = L.manifest, [0x05] = L.empty, [0x06] = L.empty,
                 [0x0b] = L.control_version, [0x0c] = L.empty,
                 [0x0f] = L.control_bundle_status, [0x10] = L.control_bundle_status,
                 [0x11] = L.control_bundle_status, [0x12] = L.control_bundle_status,
                 [0x13] = L.control_intf_status, [0x14] = L.control_intf_status,
                 [0x15] = L.control_intf_status } },
    [0x14] = { types = SVC_TYPES,
        req = { [0x01] = L.svc_version, [0x02] = L.svc_hello, [0x03] = L.svc_intf_device_id,
                [0x06] = L.svc_intf, [0x07] = L.svc_conn_create, [0x08] = L.svc_conn_destroy,
                [0x09] = L.svc_dme_get, [0x0a] = L.svc_dme_set, [0x0b] = L.svc_route_create,
                [0x0c] = L.svc_route_destroy, [0x10] = L.svc_set_pwrm, [0x11] = L.svc_intf,
                [0x13] = L.empty, [0x14] = L.empty, [0x15] = L.empty,
                [0x16] = L.svc_pwrmon_sample, [0x17] = L.svc_pwrmon_intf_sample,
                [0x1f] = L.svc_module_inserted, [0x20] = L.svc_module_removed,
                [0x21] = L.svc_intf, [0x22] = L.svc_intf, [0x23] = L.svc_intf,
                [0x24] = L.svc_intf, [0x25] = L.svc_intf, [0x26] = L.svc_intf,
                [0x27] = L.svc_intf, [0x28] = L.svc_intf, [0x29] = L.svc_mailbox_event,
                [0x2a] = L.svc_oops },
        resp = { [0x01] = L.svc_version, [0x02] = L.empty, [0x03] = L.empty, [0x06] = L.empty,
                 [0x07] = L.empty, [0x08] = L.empty, [0x09] = L.svc_dme_get_response,
                 [0x0a] = L.svc_dme_set_response, [0x0b] = L.empty, [0x0c] = L.empty,
                 [0x10] = L.svc_pwrm_response, [0x11] = L.empty, [0x13] = L.empty,
                 [0x14] = L.svc_rail_count, [0x15] = L.svc_rail_names,
                 [0x16] = L.svc_pwrmon_sample_response, [0x17] = L.svc_pwrmon_sample_response,
                 [0x1f] = L.empty, [0x20] = L.empty, [0x21] = L.svc_power_response,
                 [0x22] = L.svc_power_response, [0x23] = L.svc_power_response,
                 [0x24] = L.svc_power_response, [0x25] = L.svc_power_response,
                 [0x26] = L.svc_power_response, [0x27] = L.svc_activate_response,
                 [0x28] = L.svc_status, [0x29] = L.empty, [0x2a] = L.empty } },
    [0x02] = { types = GPIO_TYPES,
        req = { [0x02] = L.empty, [0x03] = L.gpio_which, [0x04] = L.gpio_which,
                [0x05] = L.gpio_which, [0x06] = L.gpio_which, [0x07] = L.gpio_which_value,
                [0x08] = L.gpio_which, [0x09] = L.gpio_which_value, [0x0a] = L.gpio_debounce,
                [0x0b] = L.gpio_irq_type, [0x0c] = L.gpio_which, [0x0d] = L.gpio_which,
                [0x0e] = L.gpio_which },
        resp = { [0x02] = L.gpio_count, [0x03] = L.empty, [0x04] = L.empty,
                 [0x05] = L.gpio_direction, [0x06] = L.empty, [0x07] = L.empty,
                 [0x08] = L.gpio_value, [0x09] = L.empty, [0x0a] = L.empty, [0x0b] = L.empty,
                 [0x0c] = L.empty, [0x0d] = L.empty, [0x0e] = L.empty } },
    [0x03] = { types = I2C_TYPES,
        req = { [0x02] = L.empty, [0x05] = L.i2c_transfer },
        resp = { [0x02] = L.i2c_functionality, [0x05] = L.i2c_read } },
    [0x04] = { types = UART_TYPES,
        req = { [0x02] = L.uart_send_data, [0x03] = L.uart_receive_data,
                [0x04] = L.uart_line_coding, [0x05] = L.uart_control, [0x06] = L.uart_break,
                [0x07] = L.uart_serial_state, [0x08] = L.uart_credits, [0x09] = L.uart_flush },
        resp = { [0x02] = L.empty, [0x03] = L.empty, [0x04] = L.empty, [0x05] = L.empty,
                 [0x06] = L.empty, [0x07] = L.empty, [0x08] = L.empty, [0x09] = L.empty } },
    [0x05] = { types = HID_TYPES,
        req = { [0x02] = L.empty, [0x03] = L.empty, [0x04] = L.empty, [0x05] = L.empty,
                [0x06] = L.hid_get_report, [0x07] = L.hid_set_report, [0x08] = L.hid_report },
        resp = { [0x02] = L.hid_desc, [0x03] = L.hid_report_desc, [0x04] = L.empty,
                 [0x05] = L.empty, [0x06] = L.hid_report, [0x07] = L.empty, [0x08] = L.empty } },
    [0x08] = { types = POWER_SUPPLY_TYPES,
        req = { [0x02] = L.empty, [0x03] = L.psy_id, [0x04] = L.psy_id,
                [0x05] = L.psy_get_property, [0x06] = L.psy_set_property, [0x07] = L.psy_event },
        resp = { [0x02] = L.psy_count, [0x03] = L.psy_description,
                 [0x04] = L.psy_prop_descriptors, [0x05] = L.psy_property_value,
                 [0x06] = L.empty, [0x07] = L.empty } },
    [0x09] = { types = PWM_TYPES,
        req = { [0x02] = L.empty, [0x03] = L.pwm_which, [0x04] = L.pwm_which,
                [0x05] = L.pwm_config, [0x06] = L.pwm_polarity, [0x07] = L.pwm_which,
                [0x08] = L.pwm_which },
        resp = { [0x02] = L.pwm_count, [0x03] = L.empty, [0x04] = L.empty, [0x05] = L.empty,
                 [0x06] = L.empty, [0x07] = L.empty, [0x08] = L.empty } },
    [0x0b] = { types = SPI_TYPES,
        req = { [0x02] = L.empty, [0x03] = L.spi_chip_select, [0x04] = L.spi_transfer },
        resp = { [0x02] = L.spi_master_config, [0x03] = L.spi_device_config,
                 [0x04] = L.spi_read } },
    [0x0f] = { types = LIGHTS_TYPES,
        req = { [0x02] = L.empty, [0x03] = L.lights_light, [0x04] = L.lights_channel,
                [0x05] = L.lights_channel, [0x06] = L.lights_brightness,
                [0x07] = L.lights_blink, [0x08] = L.lights_color, [0x09] = L.lights_fade,
                [0x0a] = L.lights_event, [0x0b] = L.lights_intensity,
                [0x0c] = L.lights_strobe, [0x0d] = L.lights_timeout,
                [0x0e] = L.lights_channel },
        resp = { [0x02] = L.lights_count, [0x03] = L.lights_light_config,
                 [0x04] = L.lights_channel_config, [0x05] = L.lights_flash_config,
                 [0x06] = L.empty, [0x07] = L.empty, [0x08] = L.empty, [0x09] = L.empty,
                 [0x0a] = L.empty, [0x0b] = L.empty, [0x0c] = L.empty, [0x0d] = L.empty,
                 [0x0e] = L.lights_fault } },
    [0x10] = { types = VIBRATOR_TYPES,
        req = { [0x02] = L.empty, [0x03] = L.empty },
        resp = { [0x02] = L.empty, [0x03] = L.empty } },
    [0x11] = { types = LOOPBACK_TYPES,
        req = { [0x02] = L.empty, [0x03] = L.loopback_transfer, [0x04] = L.loopback_transfer },
        resp = { [0x02] = L.empty, [0x03] = L.loopback_transfer, [0x04] = L.empty } },
    [0x1a] = { types = LOG_TYPES, req = { [0x02] = L.log_send }, resp = { [0x02] = L.empty } },
    [0xfe] = { types = RAW_TYPES, req = { [0x02] = L.raw_send }, resp = { [0x02] = L.empty } },
    -- names only
    [0x07] = { types = SDIO_TYPES, req = {}, resp = {} },
    [0x12] = { types = AUDIO_TYPES, req = {}, resp = {} },
    [0x15] = { types = BOOTROM_TYPES, req = {}, resp = {} },
    [0x17] = { types = FW_DOWNLOAD_TYPES, req = {}, resp = {} },
    [0x18] = { types = FW_MGMT_TYPES, req = {}, resp = {} },
    [0x19] = { types = AUTHENTICATION_TYPES, req = {}, resp = {} },
}

---------------------------------------------------------------------------------------------
-- Connections
---------------------------------------------------------------------------------------------

local SVC_PROTOCOL = 0x14
local CONTROL_PROTOCOL = 0x00

-- The protocol a module interface's CPort speaks, and how that is known.
local function protocol_of(intf, cport)
    if cport == 0 then
        return CONTROL_PROTOCOL, "CPort 0 of an interface is its control connection"
    end
    local m = S.manifests[intf]
    local c = m and m.cports[cport]
    if c then
        return c.protocol, fmt("CPort descriptor in the manifest of interface %d (frame %d)",
                               intf, m.frame)
    end
    return nil, fmt("interface %d CPort %d is in no manifest seen so far", intf, cport)
end

-- Works out on the first pass: the interface end of the connection, its protocol, the
-- pairing keys and the Info text of the endpoints.
local function classify(rec)
    local c = {}
    local d = rec.dir
    if d > 4 then
        c.where = fmt("direction %d", d)
        c.source = fmt("record direction %d is unknown", d)
        return c
    end
    if d == 2 or d == 3 then
        c.protocol = SVC_PROTOCOL
        c.source = "the SVC connection (AP hd CPort 0 ↔ SVC CPort 0)"
        c.where = d == 2 and "AP→SVC" or "SVC→AP"
        c.src, c.dst = d == 2 and "AP" or "SVC", d == 2 and "SVC" or "AP"
        c.conn = "svc"
        c.sender, c.receiver = d == 2 and "A" or "S", d == 2 and "S" or "A"
        return c
    end
    if d == 0 then
        c.hd = rec.hd_cport ~= 0xffff and rec.hd_cport or rec.src_cport
        if rec.dst_port ~= 0xff and rec.dst_cport ~= 0xffff then
            c.intf, c.cport = rec.dst_port, rec.dst_cport
        elseif S.hd[c.hd] then
            c.intf, c.cport = S.hd[c.hd].intf, S.hd[c.hd].cport
            c.via_hd = S.hd[c.hd].frame
        end
        c.where = c.intf and fmt("AP→intf %d cport %d", c.intf, c.cport)
                  or fmt("AP hd cport %d→?", c.hd)
        c.src, c.dst = fmt("AP hd %d", c.hd), c.intf and fmt("intf %d:%d", c.intf, c.cport) or "?"
        c.sender, c.receiver = "A", "M"
    elseif d == 1 then
        c.intf, c.cport = rec.src_port, rec.src_cport
        c.hd = rec.hd_cport ~= 0xffff and rec.hd_cport or rec.dst_cport
        c.where = fmt("intf %d cport %d→AP", c.intf, c.cport)
        c.src = fmt("intf %d:%d", c.intf, c.cport)
        c.dst = c.hd ~= 0xffff and fmt("AP hd %d", c.hd) or "AP"
        c.sender, c.receiver = "M", "A"
    else -- interface -> interface: both directions look at the lower end first
        local a, b = rec.src_port .. ":" .. rec.src_cport, rec.dst_port .. ":" .. rec.dst_cport
        local lo = rec.src_port * 65536 + rec.src_cport < rec.dst_port * 65536 + rec.dst_cport
        c.intf = lo and rec.src_port or rec.dst_port
        c.cport = lo and rec.src_cport or rec.dst_cport
        c.peer_intf = lo and rec.dst_port or rec.src_port
        c.peer_cport = lo and rec.dst_cport or rec.src_cport
        c.where = fmt("intf %d cport %d→intf %d cport %d", rec.src_port, rec.src_cport,
                      rec.dst_port, rec.dst_cport)
        c.conn = a < b and (a .. "-" .. b) or (b .. "-" .. a)
        c.src, c.dst = "intf " .. a, "intf " .. b
        c.sender, c.receiver = a, b
    end
    if c.intf then
        c.protocol, c.source = protocol_of(c.intf, c.cport)
        if not c.protocol and d == 4 then
            c.protocol, c.source = protocol_of(c.peer_intf, c.peer_cport)
        end
        if not c.protocol then
            local p = S.peers[c.intf .. ":" .. c.cport]
            if p then c.protocol = protocol_of(p.intf, p.cport) end
            if c.protocol then c.source = "the other end of the connection" end
        end
        if c.via_hd then
            c.source = (c.source or "") .. fmt("; destination from CONN_CREATE in frame %d",
                                               c.via_hd)
        end
        c.conn = c.conn or fmt("%d:%d:%d", c.intf, c.cport, c.hd)
    else
        c.source = fmt("AP hd CPort %d is in no CONN_CREATE seen so far", c.hd)
    end
    return c
end

local function nstime(seconds)
    local s = math.floor(seconds)
    local ns = math.floor((seconds - s) * 1e9 + 0.5)
    if ns >= 1000000000 then s, ns = s + 1, ns - 1000000000 end
    return NSTime.new(s, ns)
end

---------------------------------------------------------------------------------------------
-- The Greybus message
---------------------------------------------------------------------------------------------

local function dissect_message(tvb, off, pinfo, tree, rec)
    local total = tvb:len() - off
    local gt = tree:add(gb, tvb(off, total))
    if total < 8 then
        gt:add_proto_expert_info(EX.header_short,
                                 fmt("Message of %d bytes, the header is 8", total))
        return fmt("message of %d bytes (shorter than the Greybus header)", total)
    end
    local size = tvb(off, 2):le_uint()
    local op_id = tvb(off + 2, 2):le_uint()
    local mtype = tvb(off + 4, 1):uint()
    local result = tvb(off + 5, 1):uint()
    local t, is_resp = mtype % 0x80, mtype >= 0x80

    -- first pass: classify, learn, pair; later passes reuse what it found
    local n = pinfo.number
    local fr = S.frames[n]
    local first = fr == nil
    if first then
        fr = classify(rec)
        fr.save = {}
        S.frames[n] = fr
    end
    local P = fr.protocol and PROTOCOLS[fr.protocol]
    local pname = fr.protocol
                  and (PROTOCOL_NAMES[fr.protocol] or fmt("protocol 0x%02x", fr.protocol))
    local tname
    if t == 0 then
        tname = "CPORT_SHUTDOWN"
    elseif P then
        tname = P.types[t]
    end

    -- header
    local size_item = gt:add_le(F["size"], tvb(off, 2))
    gt:add_le(F["op_id"], tvb(off + 2, 2))
    local type_item = gt:add(F["type"], tvb(off + 4, 1))
    if tname then type_item:append_text(fmt(" (%s)", tname)) end
    gt:add(F["response"], tvb(off + 4, 1))
    local result_item = gt:add(F["result"], tvb(off + 5, 1))
    gt:add(F["pad"], tvb(off + 6, 2))

    local plen = total - 8
    if size ~= total then
        size_item:add_proto_expert_info(EX.size_mismatch,
            fmt("Size field says %d bytes, the record holds %d", size, total))
        if size >= 8 then plen = math.min(plen, size - 8) end
    end

    if fr.protocol then
        gt:add(F["protocol"], fr.protocol):set_generated():append_text(" — " .. fr.source)
    end
    if tname then gt:add(F["type_name"], tname):set_generated() end
    if fr.intf then
        gt:add(F["intf"], fr.intf):set_generated()
        gt:add(F["cport"], fr.cport):set_generated()
    end

    if is_resp and result ~= 0 then
        result_item:add_proto_expert_info(EX.result_error,
            fmt("%s response: %s", tname or fmt("type 0x%02x", t),
                RESULT_NAMES[result] or "unknown result"))
    elseif not is_resp and result ~= 0 then
        result_item:add_proto_expert_info(EX.request_result)
    end

    -- request / response pairing
    local key_side = is_resp and fr.receiver or fr.sender
    local key = fr.conn and (fr.conn .. "|" .. key_side .. "|" .. t .. "|" .. op_id)
    if first and key and not rec.dropped then
        if not is_resp and op_id ~= 0 then
            S.pending[key] = n
            fr.ts = pinfo.abs_ts
        elseif is_resp then
            local q = S.pending[key]
            if q then
                S.pending[key] = nil
                fr.request_frame = q
                S.frames[q].response_frame = n
                fr.rt = pinfo.abs_ts - S.frames[q].ts
            end
        end
    end
    if is_resp then
        if op_id == 0 then gt:add_proto_expert_info(EX.response_id0) end
        if fr.request_frame then
            gt:add(F["request_in"], fr.request_frame):set_generated()
            gt:add(F["response_time"], nstime(fr.rt)):set_generated()
        elseif op_id ~= 0 and not rec.dropped and fr.conn then
            gt:add_proto_expert_info(EX.no_request)
        end
    elseif op_id == 0 then
        gt:add(tvb(off + 2, 2), "Unidirectional request: no response expected"):set_generated()
    elseif fr.response_frame then
        gt:add(F["response_in"], fr.response_frame):set_generated()
    end

    -- payload
    local ctx = { first = first, frame = n, conn = fr, save = fr.save }
    if is_resp and fr.request_frame then ctx.req = S.frames[fr.request_frame].save end
    local kind = "request"
    if is_resp then
        kind = fmt("response (%s)", RESULT_SHORT[result] or fmt("result 0x%02x", result))
    elseif op_id == 0 then
        kind = "request (unidirectional)"
    end
    local opname = fmt("%s %s", pname or "unknown protocol", tname or fmt("type 0x%02x", t))
    local pt = gt
    if plen > 0 then pt = gt:add(tvb(off + 8, plen), fmt("%s %s", opname, kind)) end
    local r = new_reader(tvb, off + 8, off + 8 + plen, pt, ctx)
    if not P then
        if not fr.protocol then
            gt:add_proto_expert_info(EX.unknown_conn, "Protocol not known: " .. fr.source)
        end
        r:bytes("payload")
    elseif not tname then
        type_item:add_proto_expert_info(EX.unknown_type,
            fmt("Type 0x%02x is not a %s operation", t, pname))
        r:bytes("payload")
    elseif is_resp and result ~= 0 then
        r:bytes("payload") -- the AP ignores the payload of a failed operation
    else
        local layout
        if t == 0 then
            layout = is_resp and L.empty or L.shutdown
        else
            layout = (is_resp and P.resp or P.req)[t]
        end
        if layout then
            layout(r, ctx)
            r:finish()
        else
            r:bytes("payload")
        end
    end
    if total > 8 + plen then
        gt:add(F["beyond_size"], tvb(off + 8 + plen, total - 8 - plen))
    end

    gt:append_text(fmt(", %s %s, id %d", opname, kind, op_id))
    local info = fmt("%s %s %s", fr.where, opname, kind)
    if ctx.summary then info = info .. " [" .. ctx.summary .. "]" end
    return info, fr.src, fr.dst
end

---------------------------------------------------------------------------------------------
-- The record
---------------------------------------------------------------------------------------------

-- kind 1: one data-link frame, AFC or NAC (gbvp --pcap-frames; docs/tracing.md)
local function dissect_frame(tvb, pinfo, rt)
    local dir, flags, port = tvb(2, 1):uint(), tvb(3, 1):uint(), tvb(4, 1):uint()
    local ftype, tc = tvb(5, 1):uint(), tvb(6, 1):uint()
    local seq, len = tvb(8, 4):le_uint(), tvb(12, 4):le_uint()
    rt:add(F["gbvp.version"], tvb(0, 1))
    rt:add(F["gbvp.kind"], tvb(1, 1))
    rt:add(F["gbvp.dl.dir"], tvb(2, 1))
    local fl = rt:add(F["gbvp.dl.flags"], tvb(3, 1))
    fl:add(F["gbvp.dl.dropped"], tvb(3, 1))
    fl:add(F["gbvp.dl.crc_error"], tvb(3, 1))
    fl:add(F["gbvp.dl.replay"], tvb(3, 1))
    rt:add(F["gbvp.dl.port"], tvb(4, 1))
    local ti = rt:add(F["gbvp.dl.type"], tvb(5, 1))
    rt:add(F["gbvp.dl.tc"], tvb(6, 1))
    local name = DL_TYPE_NAMES[ftype]
    if not name then
        ti:add_proto_expert_info(EX.record_bad, fmt("Unknown frame type %d", ftype))
        name = fmt("frame type %d", ftype)
    end
    rt:add_le(F["gbvp.dl.seq"], tvb(8, 4))
    if ftype == 0 then
        rt:add(F["gbvp.dl.dst_device_id"], tvb(7, 1))
        rt:add_le(F["gbvp.dl.len"], tvb(12, 4))
        rt:add_le(F["gbvp.dl.dst_cport"], tvb(16, 2))
    elseif ftype == 1 then
        rt:add_le(F["gbvp.dl.credits"], tvb(12, 4))
    end
    rt:add_le(F["gbvp.dl.wire_ps"], tvb(20, 4))
    if tvb:len() > 24 then -- a frame record is its 24-byte header and nothing after
        local extra = rt:add(F["gbvp.data"], tvb(24))
        extra:add_proto_expert_info(EX.record_bad,
            fmt("Frame record of %d bytes, it is 24", tvb:len()))
    end
    local where = port == 1 and "AP link" or fmt("link of port %d", port)
    local arrow = dir == 0 and "→ switch" or "switch →"
    local info = fmt("UniPro %s %s: %s tc %d seq %d", where, arrow, name, tc, seq)
    if ftype == 0 then
        info = info .. fmt(", %d bytes for %d:%d", len, tvb(7, 1):uint(), tvb(16, 2):le_uint())
    end
    if bit_set(flags, 0x04) then info = info .. " [replay]" end
    if bit_set(flags, 0x02) then info = info .. " [CRC error]" end
    if bit_set(flags, 0x01) then info = info .. " [lost]" end
    rt:append_text(fmt(", %s %s %s", name, where, arrow))
    pinfo.cols.protocol = "UniPro DL"
    pinfo.cols.info = info
    return tvb:len()
end

function gbvp.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol = "Greybus"
    local len = tvb:len()
    if len < 24 then
        local rt = tree:add(gbvp, tvb())
        rt:add_proto_expert_info(EX.record_short, fmt("Record of %d bytes, its header is 24", len))
        if len > 0 then rt:add(F["gbvp.data"], tvb()) end
        pinfo.cols.info = fmt("short gbvp record (%d bytes)", len)
        return len
    end
    local rt = tree:add(gbvp, tvb(0, 24))
    if tvb(0, 1):uint() == 1 and tvb(1, 1):uint() == 1 then
        return dissect_frame(tvb, pinfo, rt)
    end
    local rec = {
        version = tvb(0, 1):uint(), kind = tvb(1, 1):uint(), dir = tvb(2, 1):uint(),
        flags = tvb(3, 1):uint(), src_port = tvb(4, 1):uint(), dst_port = tvb(5, 1):uint(),
        src_cport = tvb(8, 2):le_uint(), dst_cport = tvb(10, 2):le_uint(),
        hd_cport = tvb(12, 2):le_uint(), verdict = tvb(15, 1):uint(),
    }
    rec.dropped = bit_set(rec.flags, 0x01)
    rt:add(F["gbvp.version"], tvb(0, 1))
    rt:add(F["gbvp.kind"], tvb(1, 1))
    local dir_item = rt:add(F["gbvp.dir"], tvb(2, 1))
    local fl = rt:add(F["gbvp.flags"], tvb(3, 1))
    fl:add(F["gbvp.dropped"], tvb(3, 1))
    rt:add(F["gbvp.src_port"], tvb(4, 1))
    local dp = rt:add(F["gbvp.dst_port"], tvb(5, 1))
    if rec.dst_port == 0xff then dp:append_text(" (unknown: dropped before a peer was known)") end
    rt:add(F["gbvp.src_device_id"], tvb(6, 1))
    rt:add(F["gbvp.dst_device_id"], tvb(7, 1))
    rt:add_le(F["gbvp.src_cport"], tvb(8, 2))
    local dc = rt:add_le(F["gbvp.dst_cport"], tvb(10, 2))
    if rec.dst_cport == 0xffff then
        dc:append_text(" (unknown: dropped before a peer was known)")
    end
    local hc = rt:add_le(F["gbvp.hd_cport"], tvb(12, 2))
    if rec.hd_cport == 0xffff then hc:append_text(" (the AP is not an end)") end
    rt:add(F["gbvp.traffic_class"], tvb(14, 1))
    rt:add(F["gbvp.verdict"], tvb(15, 1))
    local lat = rt:add_le(F["gbvp.latency_ps"], tvb(16, 8))
    lat:append_text(fmt(" (%.3f µs)", tvb(16, 8):le_uint64():tonumber() / 1e6))
    rt:append_text(fmt(", %s, port %d → %s", DIR_NAMES[rec.dir] or fmt("direction %d", rec.dir),
                       rec.src_port, rec.dst_port == 0xff and "?" or tostring(rec.dst_port)))

    if rec.version ~= 1 or rec.kind ~= 0 then
        rt:add_proto_expert_info(EX.record_bad,
            fmt("Record version %d, kind %d: this dissector knows version 1, kind 0",
                rec.version, rec.kind))
        if len > 24 then rt:add(F["gbvp.data"], tvb(24)) end
        pinfo.cols.info = fmt("gbvp record version %d, kind %d", rec.version, rec.kind)
        return len
    end
    if rec.dir > 4 then
        dir_item:add_proto_expert_info(EX.record_bad, fmt("Unknown direction %d", rec.dir))
    end
    local verdict = VERDICT_NAMES[rec.verdict] or fmt("verdict %d", rec.verdict)
    if rec.dropped then
        fl:add_proto_expert_info(EX.dropped, "Dropped by the fabric: " .. verdict)
    end
    local info, src, dst = dissect_message(tvb, 24, pinfo, tree, rec)
    if src then pinfo.cols.src = src end
    if dst then pinfo.cols.dst = dst end
    if rec.dropped then info = fmt("[dropped: %s] %s", verdict, info) end
    pinfo.cols.info = info
    return len
end

function gbvp.init()
    reset_state()
end

-- LINKTYPE_USER0 is wiretap encapsulation USER0 (45). Wireshark 4.0 has no "user_dlt"
-- dissector table: the USER0..15 encapsulations go to the "user_dlt" dissector through the
-- DLT_User preference table. Taking the wtap_encap entry for USER0 replaces that, so no
-- preference is needed (a DLT_User entry for 147 is then ignored).
local USER0 = (wtap_encaps and wtap_encaps.USER0) or (wtap and wtap.USER0) or 45
DissectorTable.get("wtap_encap"):add(USER0, gbvp)
-- a Wireshark with a "user_dlt" table (by DLT number) gets the entry there too
local user_dlt = DissectorTable.get("user_dlt")
if user_dlt then user_dlt:add(147, gbvp) end

// SPDX-License-Identifier: MIT
// Greybus protocol constants used by the virtual modules.
//
// Source: Greybus Specification 1.0 and Linux 6.1 include/linux/greybus/greybus_protocols.h,
// greybus_manifest.h and drivers/staging/greybus/*.c (values are facts of the wire protocol;
// where 6.1 and the specification differ, 6.1 wins). See docs/greybus.md, "Message header",
// "Result codes", "Control protocol" and "Class protocols".
#ifndef GBVP_GREYBUS_GB_PROTOCOLS_H
#define GBVP_GREYBUS_GB_PROTOCOLS_H

#include <stdint.h>

/* ---- Operation results (header byte 5 of a response) ---- */
#define GB_OP_SUCCESS 0x00
#define GB_OP_INTERRUPTED 0x01
#define GB_OP_TIMEOUT 0x02
#define GB_OP_NO_MEMORY 0x03
#define GB_OP_PROTOCOL_BAD 0x04
#define GB_OP_OVERFLOW 0x05
#define GB_OP_INVALID 0x06
#define GB_OP_RETRY 0x07
#define GB_OP_NONEXISTENT 0x08
#define GB_OP_INVALID_STATE 0x09 /* spec 1.0 only; 6.1 maps it to -EIO */
#define GB_OP_UNKNOWN_ERROR 0xfe
#define GB_OP_MALFUNCTION 0xff

/* ---- Operation types common to every protocol ---- */
#define GB_REQUEST_TYPE_CPORT_SHUTDOWN 0x00
#define GB_REQUEST_TYPE_INVALID 0x7f
#define GB_TYPE_RESPONSE_FLAG 0x80

/* ---- Protocol ids (CPort descriptor protocol_id) ---- */
#define GB_PROTOCOL_CONTROL 0x00
#define GB_PROTOCOL_GPIO 0x02
#define GB_PROTOCOL_I2C 0x03
#define GB_PROTOCOL_UART 0x04
#define GB_PROTOCOL_HID 0x05
#define GB_PROTOCOL_USB 0x06
#define GB_PROTOCOL_SDIO 0x07
#define GB_PROTOCOL_POWER_SUPPLY 0x08
#define GB_PROTOCOL_PWM 0x09
#define GB_PROTOCOL_SPI 0x0b
#define GB_PROTOCOL_DISPLAY 0x0c
#define GB_PROTOCOL_CAMERA_MGMT 0x0d
#define GB_PROTOCOL_SENSOR 0x0e
#define GB_PROTOCOL_LIGHTS 0x0f
#define GB_PROTOCOL_VIBRATOR 0x10
#define GB_PROTOCOL_LOOPBACK 0x11
#define GB_PROTOCOL_AUDIO_MGMT 0x12
#define GB_PROTOCOL_AUDIO_DATA 0x13
#define GB_PROTOCOL_SVC 0x14
#define GB_PROTOCOL_BOOTROM 0x15
#define GB_PROTOCOL_CAMERA_DATA 0x16
#define GB_PROTOCOL_FW_DOWNLOAD 0x17
#define GB_PROTOCOL_FW_MANAGEMENT 0x18
#define GB_PROTOCOL_AUTHENTICATION 0x19
#define GB_PROTOCOL_LOG 0x1a
#define GB_PROTOCOL_RAW 0xfe
#define GB_PROTOCOL_VENDOR 0xff

/* ---- Bundle classes (bundle descriptor class) ---- */
#define GB_CLASS_CONTROL 0x00
#define GB_CLASS_HID 0x05
#define GB_CLASS_POWER_SUPPLY 0x08
#define GB_CLASS_BRIDGED_PHY 0x0a
#define GB_CLASS_DISPLAY 0x0c
#define GB_CLASS_CAMERA 0x0d
#define GB_CLASS_SENSOR 0x0e
#define GB_CLASS_LIGHTS 0x0f
#define GB_CLASS_VIBRATOR 0x10
#define GB_CLASS_LOOPBACK 0x11
#define GB_CLASS_AUDIO 0x12
#define GB_CLASS_BOOTROM 0x15
#define GB_CLASS_FW_MANAGEMENT 0x16
#define GB_CLASS_LOG 0x17
#define GB_CLASS_RAW 0xfe
#define GB_CLASS_VENDOR 0xff

/* ---- Control protocol (interface CPort 0) ---- */
#define GB_CONTROL_CPORT_ID 0
#define GB_CONTROL_BUNDLE_ID 0
#define GB_CONTROL_VERSION_MAJOR 0
#define GB_CONTROL_VERSION_MINOR 1 /* gbvp default reply; 0.2+ makes 6.1 ask BUNDLE_VERSION */
#define GB_CONTROL_TYPE_VERSION 0x01
#define GB_CONTROL_TYPE_PROBE_AP 0x02
#define GB_CONTROL_TYPE_GET_MANIFEST_SIZE 0x03
#define GB_CONTROL_TYPE_GET_MANIFEST 0x04
#define GB_CONTROL_TYPE_CONNECTED 0x05
#define GB_CONTROL_TYPE_DISCONNECTED 0x06
#define GB_CONTROL_TYPE_TIMESYNC_ENABLE 0x07
#define GB_CONTROL_TYPE_TIMESYNC_DISABLE 0x08
#define GB_CONTROL_TYPE_TIMESYNC_AUTHORITATIVE 0x09
#define GB_CONTROL_TYPE_BUNDLE_VERSION 0x0b
#define GB_CONTROL_TYPE_DISCONNECTING 0x0c
#define GB_CONTROL_TYPE_TIMESYNC_GET_LAST_EVENT 0x0d
#define GB_CONTROL_TYPE_MODE_SWITCH 0x0e
#define GB_CONTROL_TYPE_BUNDLE_SUSPEND 0x0f
#define GB_CONTROL_TYPE_BUNDLE_RESUME 0x10
#define GB_CONTROL_TYPE_BUNDLE_DEACTIVATE 0x11
#define GB_CONTROL_TYPE_BUNDLE_ACTIVATE 0x12
#define GB_CONTROL_TYPE_INTF_SUSPEND_PREPARE 0x13
#define GB_CONTROL_TYPE_INTF_DEACTIVATE_PREPARE 0x14
#define GB_CONTROL_TYPE_INTF_HIBERNATE_ABORT 0x15

#define GB_CONTROL_BUNDLE_PM_OK 0x00
#define GB_CONTROL_BUNDLE_PM_INVAL 0x01
#define GB_CONTROL_BUNDLE_PM_BUSY 0x02
#define GB_CONTROL_BUNDLE_PM_FAIL 0x03
#define GB_CONTROL_BUNDLE_PM_NA 0x04

#define GB_CONTROL_INTF_PM_OK 0x00
#define GB_CONTROL_INTF_PM_BUSY 0x01
#define GB_CONTROL_INTF_PM_NA 0x02

/* ---- GPIO (protocol 0x02) ---- */
#define GB_GPIO_TYPE_LINE_COUNT 0x02
#define GB_GPIO_TYPE_ACTIVATE 0x03
#define GB_GPIO_TYPE_DEACTIVATE 0x04
#define GB_GPIO_TYPE_GET_DIRECTION 0x05
#define GB_GPIO_TYPE_DIRECTION_IN 0x06
#define GB_GPIO_TYPE_DIRECTION_OUT 0x07
#define GB_GPIO_TYPE_GET_VALUE 0x08
#define GB_GPIO_TYPE_SET_VALUE 0x09
#define GB_GPIO_TYPE_SET_DEBOUNCE 0x0a
#define GB_GPIO_TYPE_IRQ_TYPE 0x0b
#define GB_GPIO_TYPE_IRQ_MASK 0x0c
#define GB_GPIO_TYPE_IRQ_UNMASK 0x0d
#define GB_GPIO_TYPE_IRQ_EVENT 0x0e

#define GB_GPIO_IRQ_TYPE_NONE 0x00
#define GB_GPIO_IRQ_TYPE_EDGE_RISING 0x01
#define GB_GPIO_IRQ_TYPE_EDGE_FALLING 0x02
#define GB_GPIO_IRQ_TYPE_EDGE_BOTH 0x03
#define GB_GPIO_IRQ_TYPE_LEVEL_HIGH 0x04
#define GB_GPIO_IRQ_TYPE_LEVEL_LOW 0x08

/* ---- I2C (protocol 0x03) ---- */
#define GB_I2C_TYPE_FUNCTIONALITY 0x02
#define GB_I2C_TYPE_TRANSFER 0x05
#define GB_I2C_M_RD 0x0001         /* same bit values as Linux I2C_M_* */
#define GB_I2C_M_TEN 0x0010
#define GB_I2C_FUNC_I2C 0x00000001 /* same bit values as Linux I2C_FUNC_* */
#define GB_I2C_FUNC_SMBUS_EMUL 0x0eff0008

/* ---- USB (protocol 0x06, drivers/staging/greybus/usb.c: root-hub control only) ---- */
#define GB_USB_TYPE_HCD_START 0x02
#define GB_USB_TYPE_HCD_STOP 0x03
#define GB_USB_TYPE_HUB_CONTROL 0x04
#define GB_USB_HUB_CONTROL_SIZE 8 /* typeReq, wValue, wIndex, wLength (le16 each) */

/* ---- Camera management (protocol 0x0d, drivers/staging/greybus/camera.c) ---- */
#define GB_CAMERA_TYPE_CAPABILITIES 0x02
#define GB_CAMERA_TYPE_CONFIGURE_STREAMS 0x03
#define GB_CAMERA_TYPE_CAPTURE 0x04
#define GB_CAMERA_TYPE_FLUSH 0x05
#define GB_CAMERA_TYPE_METADATA 0x06 /* module -> AP, unidirectional */
#define GB_CAMERA_MAX_STREAMS 4
#define GB_CAMERA_MAX_SETTINGS_SIZE 8192
#define GB_CAMERA_CONFIGURE_STREAMS_TEST_ONLY 0x01 /* request flags */
#define GB_CAMERA_CONFIGURE_STREAMS_ADJUSTED 0x01  /* response flags */
#define GB_CAMERA_CONFIGURE_STREAMS_REQ_SIZE 4     /* num_streams, flags, le16 padding */
#define GB_CAMERA_STREAM_CONFIG_REQ_SIZE 8         /* width, height, format, padding */
#define GB_CAMERA_CONFIGURE_STREAMS_RESP_SIZE 8    /* num_streams, flags, 2 pad, le32 rate */
#define GB_CAMERA_STREAM_CONFIG_RESP_SIZE 16 /* w, h, fmt, vc, dt[2], max_pkt, pad, max_size */
#define GB_CAMERA_CAPTURE_REQ_SIZE 8  /* le32 request_id, streams, pad, le16 num_frames */
#define GB_CAMERA_FLUSH_RESP_SIZE 4   /* le32 request_id */
#define GB_CAMERA_METADATA_REQ_SIZE 8 /* le32 request_id, le16 frame, stream, pad */
#define GB_CAMERA_FORMAT_UYVY 0x01    /* the gb_format codes of camera.c's table */
#define GB_CAMERA_FORMAT_NV12 0x12
#define GB_CAMERA_FORMAT_JPEG 0x40

/* ---- SDIO (protocol 0x07, drivers/staging/greybus/sdio.c) ---- */
#define GB_SDIO_TYPE_GET_CAPABILITIES 0x02
#define GB_SDIO_TYPE_SET_IOS 0x03
#define GB_SDIO_TYPE_COMMAND 0x04
#define GB_SDIO_TYPE_TRANSFER 0x05
#define GB_SDIO_TYPE_EVENT 0x06 /* module -> AP, unidirectional */
#define GB_SDIO_CAPS_RESP_SIZE 20 /* le32 caps, ocr, f_min, f_max; le16 blk count, size */
#define GB_SDIO_SET_IOS_REQ_SIZE 14 /* le32 clock, vdd; bus_mode, power, width, timing,
                                       signal voltage, driver type */
#define GB_SDIO_COMMAND_REQ_SIZE 11 /* cmd, flags, type, le32 arg, le16 blocks, blksz */
#define GB_SDIO_COMMAND_RESP_SIZE 16 /* le32 resp[4] */
#define GB_SDIO_TRANSFER_REQ_SIZE 5  /* flags, le16 blocks, le16 blksz, then write data */
#define GB_SDIO_TRANSFER_RESP_SIZE 4 /* le16 blocks, le16 blksz, then read data */
#define GB_SDIO_CAP_NONREMOVABLE 0x00000001
#define GB_SDIO_CAP_4_BIT_DATA 0x00000002
#define GB_SDIO_CAP_8_BIT_DATA 0x00000004
#define GB_SDIO_CAP_MMC_HS 0x00000008
#define GB_SDIO_CAP_SD_HS 0x00000010
#define GB_SDIO_VDD_32_33 0x00002000
#define GB_SDIO_VDD_33_34 0x00004000
#define GB_SDIO_VDD_MASK 0x0001ffff
#define GB_SDIO_BUSMODE_PUSHPULL 0x01
#define GB_SDIO_POWER_OFF 0x00
#define GB_SDIO_POWER_UP 0x01
#define GB_SDIO_POWER_ON 0x02
#define GB_SDIO_POWER_UNDEFINED 0x03
#define GB_SDIO_BUS_WIDTH_1 0x00
#define GB_SDIO_BUS_WIDTH_4 0x02
#define GB_SDIO_BUS_WIDTH_8 0x03
#define GB_SDIO_TIMING_LEGACY 0x00
#define GB_SDIO_TIMING_SD_HS 0x02
#define GB_SDIO_TIMING_MMC_HS400 0x0a /* the highest timing code */
#define GB_SDIO_SIGNAL_VOLTAGE_120 0x02 /* the highest signal voltage code */
#define GB_SDIO_SET_DRIVER_TYPE_D 0x03  /* the highest driver type code */
#define GB_SDIO_RSP_NONE 0x00 /* COMMAND cmd_flags: sums of PRESENT, 136, CRC, BUSY, OPCODE */
#define GB_SDIO_RSP_PRESENT 0x01
#define GB_SDIO_RSP_136 0x02
#define GB_SDIO_RSP_CRC 0x04
#define GB_SDIO_RSP_BUSY 0x08
#define GB_SDIO_RSP_OPCODE 0x10
#define GB_SDIO_RSP_R1_R5_R6_R7 0x15 /* the combinations 6.1 sends */
#define GB_SDIO_RSP_R1B 0x1d
#define GB_SDIO_RSP_R2 0x07
#define GB_SDIO_RSP_R3_R4 0x01
#define GB_SDIO_CMD_AC 0x00
#define GB_SDIO_CMD_ADTC 0x01
#define GB_SDIO_CMD_BC 0x02
#define GB_SDIO_CMD_BCR 0x03
#define GB_SDIO_DATA_WRITE 0x01 /* TRANSFER data_flags: Linux MMC_DATA_* >> 8 */
#define GB_SDIO_DATA_READ 0x02
#define GB_SDIO_DATA_STREAM 0x04
#define GB_SDIO_CARD_INSERTED 0x01 /* EVENT */
#define GB_SDIO_CARD_REMOVED 0x02
#define GB_SDIO_WP 0x04

/* ---- PWM (protocol 0x09) ---- */
#define GB_PWM_TYPE_PWM_COUNT 0x02
#define GB_PWM_TYPE_ACTIVATE 0x03
#define GB_PWM_TYPE_DEACTIVATE 0x04
#define GB_PWM_TYPE_CONFIG 0x05
#define GB_PWM_TYPE_POLARITY 0x06
#define GB_PWM_TYPE_ENABLE 0x07
#define GB_PWM_TYPE_DISABLE 0x08

/* ---- SPI (protocol 0x0b) ---- */
#define GB_SPI_TYPE_MASTER_CONFIG 0x02
#define GB_SPI_TYPE_DEVICE_CONFIG 0x03
#define GB_SPI_TYPE_TRANSFER 0x04
#define GB_SPI_XFER_READ 0x01
#define GB_SPI_XFER_WRITE 0x02
#define GB_SPI_XFER_INPROGRESS 0x04
#define GB_SPI_SPI_DEV 0x00
#define GB_SPI_SPI_NOR 0x01
#define GB_SPI_SPI_MODALIAS 0x02
#define GB_SPI_MODE_CPHA 0x01 /* same bits as Linux SPI_* modes */
#define GB_SPI_MODE_CPOL 0x02
#define GB_SPI_MODE_CS_HIGH 0x04
#define GB_SPI_MODE_LSB_FIRST 0x08
#define GB_SPI_MODE_LOOP 0x20

/* ---- UART (protocol 0x04) ---- */
#define GB_UART_TYPE_SEND_DATA 0x02
#define GB_UART_TYPE_RECEIVE_DATA 0x03
#define GB_UART_TYPE_SET_LINE_CODING 0x04
#define GB_UART_TYPE_SET_CONTROL_LINE_STATE 0x05
#define GB_UART_TYPE_SEND_BREAK 0x06
#define GB_UART_TYPE_SERIAL_STATE 0x07
#define GB_UART_TYPE_RECEIVE_CREDITS 0x08
#define GB_UART_TYPE_FLUSH_FIFOS 0x09

#define GB_UART_RECV_FLAG_FRAMING 0x01
#define GB_UART_RECV_FLAG_PARITY 0x02
#define GB_UART_RECV_FLAG_OVERRUN 0x04
#define GB_UART_RECV_FLAG_BREAK 0x08
#define GB_UART_CTRL_DTR 0x01
#define GB_UART_CTRL_RTS 0x02
#define GB_UART_CTRL_DCD 0x01
#define GB_UART_CTRL_DSR 0x02
#define GB_UART_CTRL_RI 0x04

/* ---- HID (protocol 0x05) ---- */
#define GB_HID_TYPE_GET_DESC 0x02
#define GB_HID_TYPE_GET_REPORT_DESC 0x03
#define GB_HID_TYPE_PWR_ON 0x04
#define GB_HID_TYPE_PWR_OFF 0x05
#define GB_HID_TYPE_GET_REPORT 0x06
#define GB_HID_TYPE_SET_REPORT 0x07
#define GB_HID_TYPE_IRQ_EVENT 0x08
#define GB_HID_INPUT_REPORT 0
#define GB_HID_OUTPUT_REPORT 1
#define GB_HID_FEATURE_REPORT 2

/* ---- Power supply (protocol 0x08) ---- */
#define GB_POWER_SUPPLY_TYPE_GET_SUPPLIES 0x02
#define GB_POWER_SUPPLY_TYPE_GET_DESCRIPTION 0x03
#define GB_POWER_SUPPLY_TYPE_GET_PROP_DESCRIPTORS 0x04
#define GB_POWER_SUPPLY_TYPE_GET_PROPERTY 0x05
#define GB_POWER_SUPPLY_TYPE_SET_PROPERTY 0x06
#define GB_POWER_SUPPLY_TYPE_EVENT 0x07
#define GB_POWER_SUPPLY_UPDATE 0x01 /* event flag */

#define GB_POWER_SUPPLY_BATTERY_TYPE 0x0001
#define GB_POWER_SUPPLY_TECH_LION 0x0002
#define GB_POWER_SUPPLY_STATUS_UNKNOWN 0x0000
#define GB_POWER_SUPPLY_STATUS_CHARGING 0x0001
#define GB_POWER_SUPPLY_STATUS_DISCHARGING 0x0002
#define GB_POWER_SUPPLY_STATUS_NOT_CHARGING 0x0003
#define GB_POWER_SUPPLY_STATUS_FULL 0x0004
#define GB_POWER_SUPPLY_HEALTH_GOOD 0x0001
#define GB_POWER_SUPPLY_CAPACITY_LEVEL_CRITICAL 0x0001
#define GB_POWER_SUPPLY_CAPACITY_LEVEL_LOW 0x0002
#define GB_POWER_SUPPLY_CAPACITY_LEVEL_NORMAL 0x0003
#define GB_POWER_SUPPLY_CAPACITY_LEVEL_HIGH 0x0004
#define GB_POWER_SUPPLY_CAPACITY_LEVEL_FULL 0x0005
#define GB_POWER_SUPPLY_SCOPE_SYSTEM 0x0001
#define GB_POWER_SUPPLY_PROP_READ_ONLY 0x00 /* descriptor is_writeable values */
#define GB_POWER_SUPPLY_PROP_WRITEABLE 0x01

#define GB_POWER_SUPPLY_PROP_STATUS 0x00
#define GB_POWER_SUPPLY_PROP_CHARGE_TYPE 0x01
#define GB_POWER_SUPPLY_PROP_HEALTH 0x02
#define GB_POWER_SUPPLY_PROP_PRESENT 0x03
#define GB_POWER_SUPPLY_PROP_ONLINE 0x04
#define GB_POWER_SUPPLY_PROP_AUTHENTIC 0x05
#define GB_POWER_SUPPLY_PROP_TECHNOLOGY 0x06
#define GB_POWER_SUPPLY_PROP_CYCLE_COUNT 0x07
#define GB_POWER_SUPPLY_PROP_VOLTAGE_MAX 0x08
#define GB_POWER_SUPPLY_PROP_VOLTAGE_MIN 0x09
#define GB_POWER_SUPPLY_PROP_VOLTAGE_MAX_DESIGN 0x0a
#define GB_POWER_SUPPLY_PROP_VOLTAGE_MIN_DESIGN 0x0b
#define GB_POWER_SUPPLY_PROP_VOLTAGE_NOW 0x0c
#define GB_POWER_SUPPLY_PROP_VOLTAGE_AVG 0x0d
#define GB_POWER_SUPPLY_PROP_CURRENT_MAX 0x10
#define GB_POWER_SUPPLY_PROP_CURRENT_NOW 0x11
#define GB_POWER_SUPPLY_PROP_CURRENT_AVG 0x12
#define GB_POWER_SUPPLY_PROP_POWER_NOW 0x14
#define GB_POWER_SUPPLY_PROP_CHARGE_FULL_DESIGN 0x16
#define GB_POWER_SUPPLY_PROP_CHARGE_FULL 0x18
#define GB_POWER_SUPPLY_PROP_CHARGE_NOW 0x1a
#define GB_POWER_SUPPLY_PROP_CONSTANT_CHARGE_CURRENT 0x1d
#define GB_POWER_SUPPLY_PROP_CONSTANT_CHARGE_VOLTAGE 0x1f
#define GB_POWER_SUPPLY_PROP_CAPACITY 0x2a
#define GB_POWER_SUPPLY_PROP_CAPACITY_ALERT_MIN 0x2b
#define GB_POWER_SUPPLY_PROP_CAPACITY_LEVEL 0x2d
#define GB_POWER_SUPPLY_PROP_TEMP 0x2e
#define GB_POWER_SUPPLY_PROP_TIME_TO_EMPTY_NOW 0x36
#define GB_POWER_SUPPLY_PROP_TIME_TO_FULL_NOW 0x38
#define GB_POWER_SUPPLY_PROP_TYPE 0x3a
#define GB_POWER_SUPPLY_PROP_SCOPE 0x3b
#define GB_POWER_SUPPLY_PROP_CALIBRATE 0x3d
#define GB_POWER_SUPPLY_PROP_MAX 0x3d /* highest property id 6.1 knows */

/* ---- Lights (protocol 0x0f) ---- */
#define GB_LIGHTS_TYPE_GET_LIGHTS 0x02
#define GB_LIGHTS_TYPE_GET_LIGHT_CONFIG 0x03
#define GB_LIGHTS_TYPE_GET_CHANNEL_CONFIG 0x04
#define GB_LIGHTS_TYPE_GET_CHANNEL_FLASH_CONFIG 0x05
#define GB_LIGHTS_TYPE_SET_BRIGHTNESS 0x06
#define GB_LIGHTS_TYPE_SET_BLINK 0x07
#define GB_LIGHTS_TYPE_SET_COLOR 0x08
#define GB_LIGHTS_TYPE_SET_FADE 0x09
#define GB_LIGHTS_TYPE_EVENT 0x0a
#define GB_LIGHTS_TYPE_SET_FLASH_INTENSITY 0x0b
#define GB_LIGHTS_TYPE_SET_FLASH_STROBE 0x0c
#define GB_LIGHTS_TYPE_SET_FLASH_TIMEOUT 0x0d
#define GB_LIGHTS_TYPE_GET_FLASH_FAULT 0x0e
#define GB_LIGHTS_LIGHT_CONFIG 0x01 /* event flag */

#define GB_CHANNEL_MODE_NONE 0x00000000
#define GB_CHANNEL_MODE_NOTIFICATION 0x00000040
#define GB_CHANNEL_MODE_FLASH 0x00000100
#define GB_CHANNEL_MODE_TORCH 0x00000200
#define GB_CHANNEL_MODE_INDICATOR 0x00000400

#define GB_LIGHT_CHANNEL_MULTICOLOR 0x00000001
#define GB_LIGHT_CHANNEL_FADER 0x00000002
#define GB_LIGHT_CHANNEL_BLINK 0x00000004

/* ---- Vibrator (protocol 0x10) ---- */
#define GB_VIBRATOR_TYPE_ON 0x02
#define GB_VIBRATOR_TYPE_OFF 0x03

/* ---- Loopback (protocol 0x11) ---- */
#define GB_LOOPBACK_TYPE_PING 0x02
#define GB_LOOPBACK_TYPE_TRANSFER 0x03
#define GB_LOOPBACK_TYPE_SINK 0x04

/* ---- Audio management (protocol 0x12) and data (0x13), class 0x12 ----
 * drivers/staging/greybus/audio_{module,gb,topology,codec}.c. The sizes are those of 6.1's
 * packed structs; the union in gb_audio_ctl_elem_info takes its largest member (integer64,
 * 24 bytes), so a control is 75 bytes, except an enumerated one, which ends after its
 * names: 57 + names_length (how audio_topology.c steps from one control to the next). */
#define GB_AUDIO_TYPE_GET_TOPOLOGY_SIZE 0x02
#define GB_AUDIO_TYPE_GET_TOPOLOGY 0x03
#define GB_AUDIO_TYPE_GET_CONTROL 0x04
#define GB_AUDIO_TYPE_SET_CONTROL 0x05
#define GB_AUDIO_TYPE_ENABLE_WIDGET 0x06
#define GB_AUDIO_TYPE_DISABLE_WIDGET 0x07
#define GB_AUDIO_TYPE_GET_PCM 0x08
#define GB_AUDIO_TYPE_SET_PCM 0x09
#define GB_AUDIO_TYPE_SET_TX_DATA_SIZE 0x0a
#define GB_AUDIO_TYPE_ACTIVATE_TX 0x0c
#define GB_AUDIO_TYPE_DEACTIVATE_TX 0x0d
#define GB_AUDIO_TYPE_SET_RX_DATA_SIZE 0x0e
#define GB_AUDIO_TYPE_ACTIVATE_RX 0x10
#define GB_AUDIO_TYPE_DEACTIVATE_RX 0x11
#define GB_AUDIO_TYPE_JACK_EVENT 0x12      /* module -> AP */
#define GB_AUDIO_TYPE_BUTTON_EVENT 0x13    /* module -> AP */
#define GB_AUDIO_TYPE_STREAMING_EVENT 0x14 /* module -> AP */
#define GB_AUDIO_TYPE_SEND_DATA 0x15       /* data CPort, unidirectional: no response */

#define GB_AUDIO_PCM_FMT_S16_LE 0x00000004u /* SNDRV_PCM_FMTBIT_* bit numbers */
#define GB_AUDIO_PCM_RATE_8000 0x00000002u  /* SNDRV_PCM_RATE_* bit numbers */
#define GB_AUDIO_PCM_RATE_16000 0x00000008u
#define GB_AUDIO_PCM_RATE_32000 0x00000020u
#define GB_AUDIO_PCM_RATE_44100 0x00000040u
#define GB_AUDIO_PCM_RATE_48000 0x00000080u

#define GB_AUDIO_CTL_ELEM_TYPE_BOOLEAN 0x01 /* SNDRV_CTL_ELEM_TYPE_* */
#define GB_AUDIO_CTL_ELEM_TYPE_INTEGER 0x02
#define GB_AUDIO_CTL_ELEM_TYPE_ENUMERATED 0x03
#define GB_AUDIO_CTL_ELEM_TYPE_INTEGER64 0x06
#define GB_AUDIO_CTL_ELEM_IFACE_MIXER 0x02 /* the only one 6.1 accepts */
#define GB_AUDIO_ACCESS_READ 0x00000001u
#define GB_AUDIO_ACCESS_WRITE 0x00000002u

/* A topology widget's type byte: 6.1 reads it as its own enum snd_soc_dapm_type
 * (include/sound/soc-dapm.h; audio_topology.c switches on snd_soc_dapm_* and indexes its
 * widget table with it), not as greybus_protocols.h's GB_AUDIO_WIDGET_TYPE_*, which number
 * from the Greybus specification (PGA 0x07, SPK 0x0e, AIF_IN 0x17) and which 6.1 refuses
 * ("type not supported") or takes for another widget. */
#define GB_AUDIO_WIDGET_TYPE_INPUT 0x00
#define GB_AUDIO_WIDGET_TYPE_OUTPUT 0x01
#define GB_AUDIO_WIDGET_TYPE_MUX 0x02
#define GB_AUDIO_WIDGET_TYPE_MIXER 0x04
#define GB_AUDIO_WIDGET_TYPE_PGA 0x06
#define GB_AUDIO_WIDGET_TYPE_MIC 0x0b
#define GB_AUDIO_WIDGET_TYPE_HP 0x0c
#define GB_AUDIO_WIDGET_TYPE_SPK 0x0d
#define GB_AUDIO_WIDGET_TYPE_SWITCH 0x0f
#define GB_AUDIO_WIDGET_TYPE_AIF_IN 0x17
#define GB_AUDIO_WIDGET_TYPE_AIF_OUT 0x18
#define GB_AUDIO_WIDGET_STATE_DISABLED 0x01
#define GB_AUDIO_WIDGET_STATE_ENABLED 0x02 /* 6.1 spells it ..._ENAABLED */

#define GB_AUDIO_JACK_EVENT_INSERTION 0x01
#define GB_AUDIO_JACK_EVENT_REMOVAL 0x02
#define GB_AUDIO_BUTTON_EVENT_PRESS 0x01
#define GB_AUDIO_BUTTON_EVENT_RELEASE 0x02
#define GB_AUDIO_JACK_HEADPHONE 0x00000001u /* topology jack_type bits */
#define GB_AUDIO_JACK_MICROPHONE 0x00000002u
#define GB_AUDIO_JACK_HEADSET (GB_AUDIO_JACK_HEADPHONE | GB_AUDIO_JACK_MICROPHONE)
#define GB_AUDIO_JACK_BTN_0 0x04000000u
#define GB_AUDIO_JACK_BTN_1 0x02000000u
#define GB_AUDIO_JACK_BTN_2 0x01000000u
#define GB_AUDIO_JACK_BTN_3 0x00800000u

#define GB_AUDIO_INVALID_INDEX 0xff /* control index / route control: "none" */
#define GB_AUDIO_NAME_MAX 32        /* control, widget and stream names, NUL included */
#define GB_AUDIO_TOPOLOGY_HEADER_SIZE 24 /* 4 counts, 4 section sizes, jack_type */
#define GB_AUDIO_CONTROL_INFO_OFFSET 42  /* name, id, iface, le16 data_cport, le32 access,
                                            count, count_values */
#define GB_AUDIO_CTL_ELEM_INFO_VALUE_OFFSET 9 /* type, le16 dimen[4] */
#define GB_AUDIO_ENUMERATED_NAMES_OFFSET 6    /* le32 items, le16 names_length */
#define GB_AUDIO_CONTROL_SIZE 75
#define GB_AUDIO_ENUM_CONTROL_SIZE(names_length)                                              \
    (GB_AUDIO_CONTROL_INFO_OFFSET + GB_AUDIO_CTL_ELEM_INFO_VALUE_OFFSET +                     \
     GB_AUDIO_ENUMERATED_NAMES_OFFSET + (names_length))
#define GB_AUDIO_WIDGET_SIZE 68 /* name, sname, id, type, state, ncontrols; then controls */
#define GB_AUDIO_ROUTE_SIZE 4   /* source_id, destination_id, control_id, index */
#define GB_AUDIO_CTL_ELEM_VALUE_SIZE 24 /* le64 timestamp, le32[2] or le64[2] */
#define GB_AUDIO_GET_CONTROL_REQ_SIZE 2 /* control_id, index */
#define GB_AUDIO_SET_CONTROL_REQ_SIZE (2 + GB_AUDIO_CTL_ELEM_VALUE_SIZE)
#define GB_AUDIO_DATA_CPORT_REQ_SIZE 2  /* le16 data_cport (GET_PCM, (DE)ACTIVATE_TX/RX) */
#define GB_AUDIO_PCM_SIZE 10            /* le32 format, le32 rate, channels, sig_bits */
#define GB_AUDIO_SET_PCM_REQ_SIZE (2 + GB_AUDIO_PCM_SIZE)
#define GB_AUDIO_DATA_SIZE_REQ_SIZE 4   /* le16 data_cport, le16 size */
#define GB_AUDIO_EVENT_REQ_SIZE 3       /* jack: widget, attribute, event; button: widget,
                                           button, event */
#define GB_AUDIO_SEND_DATA_HEADER_SIZE 8 /* le64 timestamp, then the samples */

/* ---- Log (protocol 0x1a) ---- */
#define GB_LOG_TYPE_SEND_LOG 0x02
#define GB_LOG_MAX_LEN 1024

/* ---- Raw (protocol 0xfe) ---- */
#define GB_RAW_TYPE_SEND 0x02

/* The name of a control operation type (a response's too), e.g. "GET_MANIFEST"; NULL for a
 * type Linux 6.1 does not know (gb_names.c). */
const char *gb_control_type_name(uint8_t type);

#endif

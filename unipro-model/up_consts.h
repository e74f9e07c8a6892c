// SPDX-License-Identifier: MIT
// UniPro v1.6 / M-PHY v3 constants used by the model. Source: docs/unipro.md ("Versions",
// "Attribute IDs" and the section of each layer), which cites Linux include/ufs/unipro.h,
// projectara/nuttx unipro.h and tsb_unipro.h. Values tagged [R]/[E] there are model
// defaults, not specification facts.
#ifndef GBVP_UNIPRO_MODEL_UP_CONSTS_H
#define GBVP_UNIPRO_MODEL_UP_CONSTS_H

/* Rate series (PA_HSSeries encoding). */
#define UP_SERIES_A 1
#define UP_SERIES_B 2

/* PA_PWRMode values (rx_mode << 4 | tx_mode). */
#define UP_PWRMODE_FAST 1
#define UP_PWRMODE_SLOW 2
#define UP_PWRMODE_FASTAUTO 4
#define UP_PWRMODE_SLOWAUTO 5
#define UP_PWRMODE_UNCHANGED 7

#define UP_MAX_LANES 4
#define UP_HS_GEARS 4
#define UP_PWM_GEARS 7

/* Data link. */
#define UP_DL_MTU 288           /* DL payload bytes (L3 + L4 headers + segment) */
#define UP_SEGMENT_MAX 286      /* DL_MTU - 2 header bytes */
#define UP_CREDIT_BYTES 32      /* one credit */
#define UP_FRAME_OVERHEAD_SYMS 3 /* SOF, EOF, CRC */
#define UP_AFC_SYMS 3
#define UP_NAC_SYMS 2
#define UP_COF_SYMS 1
#define UP_SEQ_BITS 5
#define UP_SEQ_MOD 32u
#define UP_WINDOW_MAX 16u       /* unacknowledged frames per TC */
#define UP_UI_PER_SYMBOL 20     /* 16-bit symbol as two 8b10b characters */
#define UP_TCS 2

/* Network / transport. */
#define UP_DEVICE_ID_MAX 127
#define UP_GREYBUS_HDR 8

/* Attribute IDs: PHY adapter. */
#define UP_PA_AvailTxDataLanes 0x1520
#define UP_PA_AvailRxDataLanes 0x1540
#define UP_PA_ActiveTxDataLanes 0x1560
#define UP_PA_ConnectedTxDataLanes 0x1561
#define UP_PA_TxGear 0x1568
#define UP_PA_TxTermination 0x1569
#define UP_PA_HSSeries 0x156A
#define UP_PA_PWRMode 0x1571
#define UP_PA_ActiveRxDataLanes 0x1580
#define UP_PA_ConnectedRxDataLanes 0x1581
#define UP_PA_RxGear 0x1583
#define UP_PA_RxTermination 0x1584
#define UP_PA_MaxRxPWMGear 0x1586
#define UP_PA_MaxRxHSGear 0x1587
#define UP_PA_Hibern8Time 0x15A7
#define UP_PA_TActivate 0x15A8
#define UP_PA_Granularity 0x15AA
#define UP_PA_PWRModeUserData0 0x15B0
/* Data link. */
#define UP_DL_TxPreemptionCap 0x2000
#define UP_DL_TC0TxMaxSDUSize 0x2001
#define UP_DL_TC0RxInitCreditVal 0x2002
#define UP_DL_TC1TxMaxSDUSize 0x2003
#define UP_DL_TC1RxInitCreditVal 0x2004
#define UP_DL_TC0TxBufferSize 0x2005
#define UP_DL_TC1TxBufferSize 0x2006
#define UP_DL_TC0TxFCThreshold 0x2040
#define UP_DL_FC0ProtectionTimeOutVal 0x2041
#define UP_DL_TC0ReplayTimeOutVal 0x2042
#define UP_DL_AFC0ReqTimeOutVal 0x2043
#define UP_DL_AFC0CreditThreshold 0x2044
#define UP_DL_TC0OutAckThreshold 0x2045
#define UP_DL_PeerTC0Present 0x2046
#define UP_DL_PeerTC0RxInitCreditVal 0x2047
#define UP_DL_TC1TxFCThreshold 0x2060
#define UP_DL_TC1OutAckThreshold 0x2065
#define UP_DL_PeerTC1Present 0x2066
#define UP_DL_PeerTC1RxInitCreditVal 0x2067
/* Network. */
#define UP_N_DeviceID 0x3000
#define UP_N_DeviceID_valid 0x3001
/* Transport (selector = CPort id). */
#define UP_T_NumCPorts 0x4000
#define UP_T_NumTestFeatures 0x4001
#define UP_T_ConnectionState 0x4020
#define UP_T_PeerDeviceID 0x4021
#define UP_T_PeerCPortID 0x4022
#define UP_T_TrafficClass 0x4023
#define UP_T_ProtocolID 0x4024
#define UP_T_CPortFlags 0x4025
#define UP_T_TxTokenValue 0x4026
#define UP_T_RxTokenValue 0x4027
#define UP_T_LocalBufferSpace 0x4028
#define UP_T_PeerBufferSpace 0x4029
#define UP_T_CreditsToSend 0x402A
#define UP_T_CPortMode 0x402B
/* DME / DDBL1. */
#define UP_DME_DDBL1_Revision 0x5000
#define UP_DME_DDBL1_Level 0x5001
#define UP_DME_DDBL1_DeviceClass 0x5002
#define UP_DME_DDBL1_ManufacturerID 0x5003
#define UP_DME_DDBL1_ProductID 0x5004
#define UP_DME_DDBL1_Length 0x5005

/* T_CPortFlags bits. */
#define UP_CPORT_E2EFC 0x1
#define UP_CPORT_CSD_N 0x2
#define UP_CPORT_CSV_N 0x4

/* DME result codes. */
#define UP_DME_SUCCESS 0
#define UP_DME_INVALID_ATTR 1
#define UP_DME_INVALID_VALUE 2
#define UP_DME_READ_ONLY 3
#define UP_DME_BAD_INDEX 5
#define UP_DME_LOCKED 6
#define UP_DME_PEER_FAILURE 8
#define UP_DME_BUSY 9

#endif

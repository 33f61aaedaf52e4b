package facts

// Disk health: what smartctl and the kernel log say about each disk
// (KNOWLEDGE §17). Filled by probe/smart.go and probe/kmsg.go; judged by
// internal/health (the level, read by rules, inventory and metrics) and
// reported by the health rules (internal/rules/health*.go).

// DiskHealth is the health of one whole disk.
type DiskHealth struct {
	// SMART is smartctl's report; nil when not collected (NotCollected
	// says why).
	SMART *SMART `json:"smart,omitempty"`
	// Source is the command or captured file the report came from.
	Source string `json:"source,omitempty"`
	// NotCollected says why there is no report ("smartctl not installed:
	// apt install smartmontools", "the USB bridge passes no SMART").
	NotCollected string `json:"not_collected,omitempty"`
	// ByPath is the /dev/disk/by-path name (slot, port or USB path).
	ByPath string `json:"by_path,omitempty"`
	// Port is the libata port ("ata3") or SCSI address ("2:0:0:0") the
	// kernel log names the disk by.
	Port     string `json:"port,omitempty"`
	SCSIAddr string `json:"scsi_addr,omitempty"`
	// USBID is the bridge's VID:PID ("152d:0578") for disks behind USB.
	USBID string `json:"usb_id,omitempty"`
	// Zoned is queue/zoned: "none", "host-aware" or "host-managed".
	Zoned string `json:"zoned,omitempty"`
}

// SMART is one smartctl report, with values decoded as smartctl decodes
// them (never a vendor-packed raw as one number).
type SMART struct {
	// Format is "json" (smartctl ≥ 7 -j) or "text".
	Format     string `json:"format"`
	Version    string `json:"version,omitempty"`
	ExitStatus *int   `json:"exit_status,omitempty"`
	// Protocol is "ATA", "NVMe" or "SCSI".
	Protocol   string `json:"protocol,omitempty"`
	DeviceType string `json:"device_type,omitempty"`
	Family     string `json:"model_family,omitempty"`
	Model      string `json:"model,omitempty"`
	Serial     string `json:"serial,omitempty"`
	Firmware   string `json:"firmware,omitempty"`
	// RotationRPM: 0 for a solid-state device, nil when unknown.
	RotationRPM *int  `json:"rotation_rpm,omitempty"`
	TRIM        *bool `json:"trim,omitempty"`
	// Passed is the overall-health self-assessment; nil when not read.
	Passed *bool `json:"passed,omitempty"`
	// Standby: smartctl -n standby found the disk spun down and did not
	// wake it; nothing else is known.
	Standby bool `json:"standby,omitempty"`
	// NoAnswer says why smartctl got nothing from the device (unknown USB
	// bridge, no pass-through).
	NoAnswer   string      `json:"no_answer,omitempty"`
	Attributes []Attribute `json:"attributes,omitempty"`
	// PowerOnHours (and minutes where the drive counts them).
	PowerOnHours   *int64 `json:"power_on_hours,omitempty"`
	PowerOnMinutes int    `json:"power_on_minutes,omitempty"`
	// Temperatures in °C: now, lifetime min/max, the drive's limit (SCT
	// "Specified Max Operating", NVMe warning threshold, SCSI trip).
	Temp      *int `json:"temp_c,omitempty"`
	TempMin   *int `json:"temp_min_c,omitempty"`
	TempMax   *int `json:"temp_max_c,omitempty"`
	TempLimit *int `json:"temp_limit_c,omitempty"`
	// ERC is SCT error recovery control; nil when not reported.
	ERC *ERC `json:"erc,omitempty"`
	// SelfTests is the self-test log, newest first; SelfTestLog is true
	// when the log was read (an empty log then means none ever ran).
	SelfTests   []SelfTest `json:"self_tests,omitempty"`
	SelfTestLog bool       `json:"self_test_log,omitempty"`
	// SelfTestLogQuote is what the source says about the log, for
	// evidence: the text line ("No Self-tests have been logged") or the
	// JSON member ("ata_smart_self_test_log.standard.count: 0").
	SelfTestLogQuote string     `json:"self_test_log_quote,omitempty"`
	PhyEvents        []PhyEvent `json:"sata_phy_events,omitempty"`
	// Link speeds in Gb/s (SATA: "6.0 Gb/s (current: 1.5 Gb/s)").
	LinkMaxGbps float64 `json:"link_max_gbps,omitempty"`
	LinkCurGbps float64 `json:"link_current_gbps,omitempty"`
	// LinkQuote is the link speed field as smartctl printed it (text:
	// "SATA 3.0, 6.0 Gb/s (current: 3.0 Gb/s)"; JSON: the interface_speed
	// strings), for evidence.
	LinkQuote string      `json:"link_quote,omitempty"`
	NVMe      *NVMeHealth `json:"nvme,omitempty"`
	SCSI      *SCSIHealth `json:"scsi,omitempty"`
}

// Attribute is one ATA SMART attribute.
type Attribute struct {
	ID     int    `json:"id"`
	Name   string `json:"name"`
	Value  int    `json:"value"`
	Worst  int    `json:"worst"`
	Thresh int    `json:"thresh"`
	// WhenFailed is "now", "past" or "".
	WhenFailed string `json:"when_failed,omitempty"`
	Prefail    bool   `json:"prefail,omitempty"`
	// Raw is smartctl's decoded raw string ("34 (Min/Max 18/41)",
	// "12345h+23m+45.123s"); Count its leading number, the value smartctl
	// shows first. Packed is true when Raw holds more than one number.
	Raw    string `json:"raw"`
	Count  int64  `json:"count"`
	Packed bool   `json:"packed,omitempty"`
}

// ERC is SCT error recovery control in deciseconds (0 = disabled).
type ERC struct {
	Supported bool `json:"supported"`
	ReadDS    int  `json:"read_ds"`
	WriteDS   int  `json:"write_ds"`
}

// SelfTest is one entry of the self-test log.
type SelfTest struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Passed bool   `json:"passed"`
	Hours  int64  `json:"hours"`
}

// PhyEvent is one SATA Phy Event Counter (smartctl -l sataphy).
type PhyEvent struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// NVMeHealth is the NVMe SMART/Health log (log page 02h). Its JSON names
// are smartctl's (nvme_smart_health_information_log): parse/smart decodes
// smartctl -j straight into it.
type NVMeHealth struct {
	CriticalWarning int   `json:"critical_warning"`
	AvailableSpare  int   `json:"available_spare"`
	SpareThreshold  int   `json:"available_spare_threshold"`
	PercentageUsed  int   `json:"percentage_used"`
	MediaErrors     int64 `json:"media_errors"`
	ErrLogEntries   int64 `json:"num_err_log_entries"`
	UnsafeShutdowns int64 `json:"unsafe_shutdowns"`
}

// SCSIHealth is what a SAS/SCSI disk reports.
type SCSIHealth struct {
	GrownDefects *int64 `json:"grown_defects,omitempty"`
	// Uncorrected are the error counter log's total uncorrected errors
	// (read + write + verify).
	Uncorrected *int64 `json:"uncorrected,omitempty"`
	// UncorrectedBy are the per-counter values behind Uncorrected
	// ("read", "write", "verify"), in the order smartctl prints them.
	UncorrectedBy []SCSICounter `json:"uncorrected_by,omitempty"`
}

// SCSICounter is one row of the SCSI error counter log.
type SCSICounter struct {
	Op          string `json:"op"`
	Uncorrected int64  `json:"uncorrected"`
}

// KernelLog is what the kernel log (/dev/kmsg or a captured dmesg) says
// about disks and links.
type KernelLog struct {
	Source string        `json:"source"`
	Events []KernelEvent `json:"events,omitempty"`
}

// KernelEvent is one kernel-log line about storage.
type KernelEvent struct {
	// Kind: "link-reset", "link-slow", "link-crc", "media", "io-error",
	// "ata-error", "uas-abort", "usb-reset", "nvme-timeout",
	// "nvme-reset", "md-read-error", "md-corrected", "md-failed".
	Kind string `json:"kind"`
	// Disk is the whole disk the line maps to ("" when unknown); Key is
	// how the line named it (ata3, sdb, 2:0:0:0, 2-1, nvme0, md0).
	Disk string `json:"disk,omitempty"`
	Key  string `json:"key,omitempty"`
	// Gbps is the link speed of a "SATA link up" line.
	Gbps float64 `json:"gbps,omitempty"`
	Line string  `json:"line"`
}

// Health returns the health of the named disk, nil when unknown.
func (h *Host) Health(disk string) *DiskHealth {
	if d := h.Disk(disk); d != nil {
		return d.Health
	}
	return nil
}

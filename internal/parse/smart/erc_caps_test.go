package smart

import "testing"

// The SCT capability word decides ERC support: smartctl 5.x text without
// an ERC section, the 5.x warning line, 6.x text whose capability word
// lacks the bit even though an ERC section is printed, and JSON.
func TestERCFromCapabilities(t *testing.T) {
	head := "smartctl 6.6 2016-05-31 r4324 [x86_64-linux-4.9.0] (local build)\n=== START OF INFORMATION SECTION ===\nDevice Model:     X\n"
	for _, tc := range []struct {
		name, in  string
		known, ok bool
	}{
		{"caps without ERC bit", head + "SCT capabilities: \t       (0x0001)\tSCT Status supported.\n", true, false},
		{"caps with ERC bit only", head + "SCT capabilities: \t       (0x003d)\tSCT Status supported.\n\t\t\t\t\tSCT Error Recovery Control supported.\n", false, false},
		{"5.x warning", head + "Warning: device does not support SCT Error Recovery Control command\n", true, false},
		{"section but no bit", head + "SCT capabilities: \t       (0x0001)\tSCT Status supported.\n\nSCT Error Recovery Control:\n           Read: Disabled\n          Write: Disabled\n", true, false},
		{"section and bit", head + "SCT capabilities: \t       (0x003d)\tSCT Status supported.\n\nSCT Error Recovery Control:\n           Read:     70 (7.0 seconds)\n          Write:     70 (7.0 seconds)\n", true, true},
		{"json caps false", `{"json_format_version":[1,0],"smartctl":{"version":[7,2]},"device":{"protocol":"ATA"},"model_name":"X","ata_sct_capabilities":{"value":1,"error_recovery_control_supported":false}}`, true, false},
	} {
		s, err := Parse([]byte(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if (s.ERC != nil) != tc.known || (s.ERC != nil && s.ERC.Supported != tc.ok) {
			t.Errorf("%s: ERC = %+v, want known %v supported %v", tc.name, s.ERC, tc.known, tc.ok)
		}
	}
}

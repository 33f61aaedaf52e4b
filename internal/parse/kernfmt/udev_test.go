package kernfmt

import "testing"

func TestUdevDiskIDs(t *testing.T) {
	for _, c := range []struct {
		name, data               string
		wwn, serialShort, serial string
	}{
		{"ata", "E:ID_BUS=ata\nE:ID_WWN=0x5000c500a1b2c3d4\nE:ID_SERIAL=ST4000VN008-2DR166_ZDH04100\nE:ID_SERIAL_SHORT=ZDH04100\nS:disk/by-id/ata-ST4000VN008-2DR166_ZDH04100\n",
			"0x5000c500a1b2c3d4", "ZDH04100", "ST4000VN008-2DR166_ZDH04100"},
		// usb-storage: the serial is the bridge's, shared by its disks.
		{"usb", "E:ID_BUS=usb\nE:ID_SERIAL=USB3.0_Disk_00000000000-0:0\nE:ID_SERIAL_SHORT=00000000000\n", "", "", ""},
		{"none", "E:ID_FS_TYPE=xfs\n", "", "", ""},
	} {
		w, ss, s := Udev([]byte(c.data)).DiskIDs()
		if w != c.wwn || ss != c.serialShort || s != c.serial {
			t.Errorf("%s: %q %q %q", c.name, w, ss, s)
		}
	}
}

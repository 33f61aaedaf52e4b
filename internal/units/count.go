package units

import "strconv"

// Count is a number with its noun in agreement: Count(1, "disk", "disks")
// is "1 disk", Count(3, …) "3 disks", Count(0, …) "0 disks".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

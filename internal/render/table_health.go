package render

import "fmt"

// tempText writes a temperature for the TEMP column.
func tempText(t *int) string {
	if t == nil {
		return "-"
	}
	return fmt.Sprintf("%d°C", *t)
}

// hoursText writes power-on time in human units: hours up to two days,
// days up to a year, then years with one decimal.
func hoursText(h *int64) string {
	switch {
	case h == nil:
		return "-"
	case *h < 48:
		return fmt.Sprintf("%dh", *h)
	case *h < 24*365:
		return fmt.Sprintf("%dd", *h/24)
	}
	return fmt.Sprintf("%.1fy", float64(*h)/(24*365))
}

// tempCell and hoursCell are the TEMP and POWER-ON cells of the disk grid:
// human text, the raw number for sorting.
func tempCell(t *int) cell {
	if t == nil {
		return cell{Text: "-"}
	}
	return num(tempText(t), float64(*t))
}

func hoursCell(h *int64) cell {
	if h == nil {
		return cell{Text: "-"}
	}
	return num(hoursText(h), float64(*h))
}

package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/nastune/nastune/internal/inventory"
)

// NetTable prints the interface inventory as an aligned table.
func NetTable(w io.Writer, n inventory.Net) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tSPEED\tDUPLEX\tMTU\tMAC\tADDRESSES\tDRIVER\tBUS\tOFFLOADS\tRING RX/TX (MAX)\tTXQ\tBOND")
	for _, r := range n.Interfaces {
		state := r.Operstate
		if r.Carrier != nil && !*r.Carrier && state == "up" {
			state = "up,no-carrier"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.Name, dash(state), speed(r.SpeedMbps), dash(r.Duplex), intp(r.MTU), dash(r.MAC),
			dash(strings.Join(r.Addresses, ",")), dash(r.Driver), dash(r.BusInfo), offloads(r.Features),
			rings(r), intp(r.TxQueueLen), bond(r.Bond))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func intp(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

func speed(p *int) string {
	switch {
	case p == nil:
		return "-"
	case *p >= 1000 && *p%1000 == 0:
		return fmt.Sprintf("%dG", *p/1000)
	case *p >= 1000:
		return fmt.Sprintf("%.1fG", float64(*p)/1000)
	}
	return fmt.Sprintf("%dM", *p)
}

// offloads prints the key offloads that are on, by short name.
func offloads(f map[string]bool) string {
	if f == nil {
		return "-"
	}
	short := map[string]string{
		"rx-checksumming": "rxcsum", "tx-checksumming": "txcsum", "scatter-gather": "sg",
		"tcp-segmentation-offload": "tso", "generic-segmentation-offload": "gso",
		"generic-receive-offload": "gro", "large-receive-offload": "lro",
	}
	var on []string
	for _, k := range inventory.KeyFeatures {
		if f[k] {
			on = append(on, short[k])
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, ",")
}

func rings(r inventory.NetRow) string {
	if r.Rings == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%d/%d)", r.Rings.RX, r.Rings.TX, r.Rings.RXMax, r.Rings.TXMax)
}

func bond(b *inventory.BondRole) string {
	switch {
	case b == nil:
		return "-"
	case b.Role == "master":
		return fmt.Sprintf("master %s [%s]", b.Mode, strings.Join(b.Slaves, ","))
	}
	return "slave of " + b.Master
}

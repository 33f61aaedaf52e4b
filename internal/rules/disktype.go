package rules

import (
	"github.com/nastune/nastune/internal/facts"
)

// selfTestLogQuote is what the smartctl output itself says about an empty
// self-test log (the text line, or the JSON member and its count).
func selfTestLogQuote(s *facts.SMART) string {
	if s.SelfTestLogQuote != "" {
		return s.SelfTestLogQuote
	}
	return "self-test log read, no entries"
}

package engine

import (
	"encoding/base64"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// dpFormats is the set of formats DP asserts (those of go-openapi/strfmt
// that DP's validator knows). A format outside this set is ignored, as DP
// does; in particular JSON Schema's own formats DP does not know (regex,
// json-pointer, uri-reference, ...) are not asserted.
var dpFormats = map[string]func(string) error{
	"uri":          checkURI,
	"email":        checkEmail,
	"hostname":     checkHostname,
	"ipv4":         checkIPv4,
	"ipv6":         checkIPv6,
	"cidr":         checkCIDR,
	"mac":          checkMAC,
	"uuid":         regexpFormat(reUUID, "a UUID"),
	"uuid3":        regexpFormat(reUUID3, "a version 3 UUID"),
	"uuid4":        regexpFormat(reUUID4, "a version 4 UUID"),
	"uuid5":        regexpFormat(reUUID5, "a version 5 UUID"),
	"date":         checkDate,
	"date-time":    checkDateTime,
	"datetime":     checkDateTime,
	"duration":     checkDuration,
	"byte":         checkByte,
	"password":     func(string) error { return nil },
	"hexcolor":     regexpFormat(regexp.MustCompile(`^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`), "a hex color"),
	"rgbcolor":     regexpFormat(regexp.MustCompile(`^rgb\(\s*(25[0-5]|2[0-4]\d|1\d\d|\d\d?)\s*,\s*(25[0-5]|2[0-4]\d|1\d\d|\d\d?)\s*,\s*(25[0-5]|2[0-4]\d|1\d\d|\d\d?)\s*\)$`), "an rgb(r, g, b) color"),
	"bsonobjectid": regexpFormat(regexp.MustCompile(`^[0-9a-fA-F]{24}$`), "a BSON object id"),
	"ulid":         regexpFormat(regexp.MustCompile(`^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$`), "a ULID"),
}

var (
	reUUID  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	reUUID3 = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-3[0-9a-fA-F]{3}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	reUUID4 = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)
	reUUID5 = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-5[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)
	// RFC 1123 host name label.
	reHostLabel = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$`)
)

// formatReason is why a string fails a format, in words that never include
// the string itself: problem messages must not print values (they may be
// secrets), and keywordMessage shows only a formatReason.
type formatReason string

func (r formatReason) Error() string { return string(r) }

// registerFormats makes the compiler assert exactly DP's formats.
func registerFormats(c *jsonschema.Compiler) {
	for name, check := range dpFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(v any) error {
			s, ok := v.(string)
			if !ok {
				return nil
			}
			return check(s)
		}})
	}
}

func regexpFormat(re *regexp.Regexp, what string) func(string) error {
	return func(s string) error {
		if !re.MatchString(s) {
			return formatReason("not " + what)
		}
		return nil
	}
}

func checkURI(s string) error {
	u, err := url.ParseRequestURI(s)
	if err != nil {
		return formatReason("not an absolute URI")
	}
	if u.Scheme == "" {
		return formatReason("URI has no scheme")
	}
	return nil
}

func checkEmail(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return formatReason("not an email address")
	}
	return nil
}

func checkHostname(s string) error {
	h := strings.TrimSuffix(s, ".")
	if h == "" || len(h) > 253 {
		return formatReason("not a host name")
	}
	for _, l := range strings.Split(h, ".") {
		if !reHostLabel.MatchString(l) {
			return formatReason("not a host name (RFC 1123)")
		}
	}
	return nil
}

func checkIPv4(s string) error {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() {
		return formatReason("not an IPv4 address")
	}
	return nil
}

func checkIPv6(s string) error {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() || a.Zone() != "" {
		return formatReason("not an IPv6 address")
	}
	return nil
}

func checkCIDR(s string) error {
	if _, _, err := net.ParseCIDR(s); err != nil {
		return formatReason("not a CIDR block")
	}
	return nil
}

func checkMAC(s string) error {
	if _, err := net.ParseMAC(s); err != nil {
		return formatReason("not a MAC address")
	}
	return nil
}

func checkDate(s string) error {
	if _, err := time.Parse("2006-01-02", s); err != nil {
		return formatReason("not a date (YYYY-MM-DD)")
	}
	return nil
}

var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05.999999999",
}

func checkDateTime(s string) error {
	for _, l := range dateTimeLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return nil
		}
	}
	return formatReason("not a date-time (RFC 3339)")
}

// checkDuration accepts Go durations such as 1h30m, 10s or 500ms.
func checkDuration(s string) error {
	if _, err := time.ParseDuration(s); err != nil {
		return formatReason("not a duration such as 1h30m, 10s or 500ms")
	}
	return nil
}

func checkByte(s string) error {
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		return formatReason("not base64-encoded data")
	}
	return nil
}

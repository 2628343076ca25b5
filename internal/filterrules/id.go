package filterrules

// IsID reports whether s is an ID as the API writes them (contract §2.9):
// 24 hexadecimal characters, either case.
func IsID(s string) bool {
	if len(s) != 24 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

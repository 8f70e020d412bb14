package gateway

// maxRequestIDLen bounds an X-Request-Id the gateway takes from a client.
const maxRequestIDLen = 128

// validRequestID reports whether a client's X-Request-Id is safe to echo in a header, a body and
// a log line: 1 to 128 of A-Z, a-z, 0-9, '.', '_' and '-'.
func validRequestID(s string) bool {
	if len(s) < 1 || len(s) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

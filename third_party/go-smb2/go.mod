module github.com/cloudsoda/go-smb2

go 1.25

require (
	github.com/cloudsoda/sddl v0.0.0-20250224235906-926454e91efc
	github.com/geoffgarside/ber v1.1.0
	golang.org/x/crypto v0.9.0
)

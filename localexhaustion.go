//go:build !plan9

package ugc

import "syscall"

// localExhaustion are the errors of a local resource that ran out: the
// process's or the system's file descriptors, ephemeral ports (an address
// that cannot be assigned), socket buffers; and Windows' numbers for the
// same (WSAEMFILE, WSAEADDRNOTAVAIL, WSAENOBUFS), which its syscall
// package does not name.
var localExhaustion = []error{
	syscall.EMFILE, syscall.ENFILE, syscall.EADDRNOTAVAIL, syscall.ENOBUFS,
	syscall.Errno(10024), syscall.Errno(10049), syscall.Errno(10055),
}

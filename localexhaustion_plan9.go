package ugc

import "syscall"

// localExhaustion are the errors of a local resource that ran out: on
// Plan 9, file descriptors.
var localExhaustion = []error{syscall.EMFILE}

/**
 * Run before every test file, in its worker: the processes the tests start (the CLI ~270 times in a
 * suite, and any other Node process) start without NODE_EXTRA_CA_CERTS. Node reads and
 * parses the certificate bundle that variable names at every start, before any script can unset it:
 * ~40 ms of CPU a run on the development machine, whose environment sets it. Nothing lsmscope runs
 * opens a TLS connection; the one test that reaches the network (npm install, test/packaging) takes
 * the value kept here.
 */
const ca = process.env.NODE_EXTRA_CA_CERTS;
if (ca !== undefined) {
  process.env.LSMSCOPE_TEST_NODE_EXTRA_CA_CERTS = ca;
  delete process.env.NODE_EXTRA_CA_CERTS;
}

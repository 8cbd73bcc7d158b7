/** Node-RED's serial nodes (node-red-node-serialport) set up as this package expects: binary, one message per byte. */
export function serialPortConfig(id: string, path: string): Record<string, unknown> {
  return {
    id,
    type: 'serial-port',
    serialport: path,
    serialbaud: '9600',
    databits: '8',
    parity: 'none',
    stopbits: '1',
    waitfor: '',
    dtr: 'none',
    rts: 'none',
    cts: 'none',
    dsr: 'none',
    // An empty split character: every byte is its own message, so an ENQ or ACK is
    // never held back waiting for a delimiter and no buffer limit can cut a long frame.
    newline: '',
    bin: 'bin',
    out: 'char',
    addchar: '',
    responsetimeout: '10000',
  };
}

export function serialNodesModule(): unknown {
  return require(require.resolve('node-red-node-serialport/25-serial.js'));
}

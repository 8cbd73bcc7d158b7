/** Node-RED's serial nodes (node-red-node-serialport) in test flows, set up as the examples set them up. */
import { serialPortNode } from '../../demo/examples';

export function serialPortConfig(id: string, path: string): Record<string, unknown> {
  return serialPortNode(id, '', path, '9600');
}

export function serialNodesModule(): unknown {
  return require(require.resolve('node-red-node-serialport/25-serial.js'));
}

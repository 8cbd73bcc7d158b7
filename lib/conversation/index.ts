/** The host conversation with the analyzer: a query answered from the LIS, and the MessageHost a protocol implements. What nodes/ uses of it. */
export { type HostOutput, isLabOrder, type MessageHost, type ReadMessage } from './message-host';

/** The four LIS endpoints, named as in spec section 4, with the settings that address them. */
export const ENDPOINTS = {
  LabTestsAPI: { setting: 'labTestsApiUrl', label: 'LabTestsAPI URL', required: true },
  TransactionInfoAPI: { setting: 'transactionInfoApiUrl', label: 'TransactionInfoAPI URL', required: true },
  ResultAPI: { setting: 'resultApiUrl', label: 'ResultAPI URL', required: true },
  OrderCompletedAPI: { setting: 'orderCompletedApiUrl', label: 'OrderCompletedAPI URL', required: false },
} as const;

export type EndpointName = keyof typeof ENDPOINTS;
export type EndpointSetting = (typeof ENDPOINTS)[EndpointName]['setting'];

/** Node settings: the numeric settings of every node and the faults of unresolved or invalid ones. What nodes/ uses of it. */
export { ALARM_SETTINGS, LIS_NODE_SETTINGS, type NumericSetting, readSettings } from './node-settings';
export { asFault, invalidSetting, SettingError, type SettingFault, unresolvedSetting } from './unresolved';

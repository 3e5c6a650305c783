export const FAULT_CATEGORIES = ['GENERAL', 'MECHANICAL', 'ELECTRICAL', 'SOFTWARE', 'COMMUNICATION', 'CONFIGURATION', 'OPERATION', 'SAFETY', 'OTHER'] as const;
export type FaultCategory = (typeof FAULT_CATEGORIES)[number];

export const CASE_SOURCE_TYPES = ['AUTO', 'MANUAL'] as const;
export type CaseSourceType = (typeof CASE_SOURCE_TYPES)[number];

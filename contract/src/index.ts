export * from './common';
export * from './servers';
export * from './groups';
export * from './users';
export * from './auth';
export * from './system-config';
export * from './settings';
export * from './pins';

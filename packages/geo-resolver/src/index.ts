export * from '@svc/ip-address';

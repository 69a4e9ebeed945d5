export const SERVICE_VERSION = '7.3.0';
export const SERVICE_NAME = 'svc-verification-service';

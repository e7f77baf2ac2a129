/** The operator token the tests' servers are given (VITRINE_ADMIN_TOKEN), and its header. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** Start-up failures (`vitrine serve`, `npm start`, any command) in the operator's terms. */

const DATABASE_CODES: Record<string, string> = {
  '28P01': 'authentication failed',
  '28000': 'authorization failed',
  '3D000': 'the database does not exist',
  '3F000': 'the schema does not exist',
};

/** A failure to start, in the operator's terms: the setting to fix, the address, the reason. */
export function explainStartupError(
  error: Error & { code?: string; address?: string; hostname?: string; port?: number; syscall?: string },
) {
  const host = error.address ?? error.hostname;
  const where = host ? `${host}${error.port !== undefined ? `:${error.port}` : ''}` : '';
  if (error.code === 'EADDRINUSE') return `PORT: ${where} is already in use (choose another with PORT or --port)`;
  if (error.code === 'EACCES' && error.syscall === 'listen') return `PORT: not allowed to listen on ${where}`;
  if (error.syscall === 'connect' || error.syscall === 'getaddrinfo')
    return `DATABASE_URL: cannot connect to ${where || 'the database'} (${error.code ?? error.message})`;
  if (error.code === 'SQLITE_CANTOPEN') return `DATABASE_URL: cannot open the SQLite file (${error.message})`;
  if (error.code && DATABASE_CODES[error.code]) return `DATABASE_URL: ${DATABASE_CODES[error.code]} (${error.message})`;
  if (/timeout.*connect|connection terminated/i.test(error.message))
    return `DATABASE_URL: cannot connect (${error.message})`;
  return error.message;
}

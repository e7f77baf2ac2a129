import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUnavailableError } from '../../src/storage/sql-errors.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('storage errors: what means the database cannot serve now', () => {
  it('classifies by SQLSTATE class and driver code, not by message', () => {
    const unavailable = [
      '08006', // connection failure
      '08P01', // protocol violation on the connection
      '28P01', // password rejected after start-up
      '53100', // disk full
      '53200', // out of memory
      '53300', // too many connections
      '57P01', // terminated by an administrator
      '57P02', // crash shutdown
      '57P03', // starting up, shutting down
      '57P04', // database dropped
      '58030', // I/O error
      '55000', // database not accepting connections
      '25006', // read-only transaction
      '57014', // statement timeout
      'SQLITE_FULL',
      'SQLITE_BUSY',
      'SQLITE_BUSY_TIMEOUT',
      'SQLITE_IOERR_WRITE',
      'SQLITE_CANTOPEN',
      'SQLITE_READONLY',
      'ECONNREFUSED',
      'EAI_AGAIN',
    ];
    for (const code of unavailable) assert.ok(isUnavailableError(withCode(code)), code);
    const ours = ['23505', '22P02', '42P01', '40001', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_ERROR', 'SQLITE_MISMATCH'];
    for (const code of ours) assert.ok(!isUnavailableError(withCode(code)), code);
  });
});

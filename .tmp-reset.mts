import { MongoClient } from 'mongodb';
const c = new MongoClient('mongodb://127.0.0.1:37117/auditexp'); await c.connect(); await c.db().dropDatabase(); await c.close();

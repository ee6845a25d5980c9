// Sequelize 6 over node-postgres: an application's life against the
// server of the libpq environment (PGHOST, PGPORT, PGUSER, PGDATABASE).
// internal/e2e TestSequelize runs it on PostgreSQL 15 and on pgproxy and
// compares the transcripts; it ends with OK.
'use strict';
const { Sequelize, DataTypes, Op } = require('sequelize');

const say = (...a) => console.log(a.join(' '));
const sorted = (o) => JSON.stringify(o, Object.keys(o).sort());
const canon = (v) => (v && typeof v === 'object' && !Array.isArray(v)) ? JSON.stringify(Object.keys(v).sort().reduce((a, k) => { a[k] = v[k]; return a; }, {})) : JSON.stringify(v);

async function main() {
  const sequelize = new Sequelize(process.env.PGDATABASE, process.env.PGUSER, process.env.PGPASSWORD || null, {
    host: process.env.PGHOST, port: Number(process.env.PGPORT), dialect: 'postgres', logging: false,
    pool: { max: 2, min: 0, idle: 1000 },
  });
  await sequelize.authenticate();

  const define = (extra) => {
    const User = sequelize.define('User', {
      name: { type: DataTypes.STRING(80), allowNull: false, unique: true },
      email: { type: DataTypes.STRING, validate: { isEmail: true } },
      profile: { type: DataTypes.JSONB, defaultValue: {} },
      balance: { type: DataTypes.DECIMAL(12, 2), allowNull: false, defaultValue: 0 },
      // an enum: Sequelize creates its type with a PL/pgSQL DO block
      // (EXCEPTION WHEN duplicate_object) and alters it with ADD VALUE
      status: { type: DataTypes.ENUM('active', 'banned'), defaultValue: 'active' },
      tags: { type: DataTypes.ARRAY(DataTypes.TEXT) },
      ...extra,
    }, { paranoid: true });
    const Project = sequelize.define('Project', {
      title: { type: DataTypes.STRING, allowNull: false },
      budget: DataTypes.DECIMAL(14, 4),
      settings: DataTypes.JSONB,
    });
    const Task = sequelize.define('Task', {
      title: DataTypes.STRING,
      done: { type: DataTypes.BOOLEAN, defaultValue: false },
      due: DataTypes.DATEONLY,
    });
    const Label = sequelize.define('Label', { name: { type: DataTypes.STRING(30), unique: true } }, { timestamps: false });
    User.hasMany(Project, { foreignKey: { name: 'ownerId', allowNull: false }, as: 'projects', onDelete: 'CASCADE' });
    Project.belongsTo(User, { foreignKey: 'ownerId', as: 'owner' });
    Project.hasMany(Task, { as: 'tasks', onDelete: 'CASCADE' });
    Task.belongsTo(Project);
    Project.belongsToMany(Label, { through: 'ProjectLabels', as: 'labels' });
    Label.belongsToMany(Project, { through: 'ProjectLabels', as: 'projects' });
    return { User, Project, Task, Label };
  };

  let { User, Project, Task, Label } = define({});
  await sequelize.sync({ force: true });
  const qi = sequelize.getQueryInterface();
  const tables = (await qi.showAllTables()).map(String).sort();
  say('tables', tables.join(','));
  const describe = async (t) => {
    const d = await qi.describeTable(t);
    for (const c of Object.keys(d).sort()) {
      const x = d[c];
      say(' ', t + '.' + c, x.type, 'null=' + x.allowNull, 'pk=' + x.primaryKey, 'default=' + x.defaultValue, x.special && x.special.length ? 'enum=' + x.special.join('|') : '');
    }
  };
  await describe('Users');
  await describe('Projects');
  const fks = await qi.getForeignKeyReferencesForTable('Tasks');
  for (const f of fks) say('fk Tasks', f.columnName, '->', f.referencedTableName + '.' + f.referencedColumnName);
  const idx = await qi.showIndex('Users');
  say('indexes Users', idx.map((i) => `${i.name}:${i.unique}:${i.primary}:${i.fields.map((f) => f.attribute).join('+')}`).sort().join(' '));

  // CRUD with nested creates and includes.
  const ada = await User.create({
    name: 'ada', email: 'ada@example.com', profile: { city: 'London', langs: ['en', 'fr'] }, balance: '1234.50', tags: ['math', 'poetry'],
    projects: [{ title: 'engine', budget: '99999.1234', settings: { public: true, level: 3 }, tasks: [{ title: 'design', due: '1843-07-01' }, { title: 'notes', done: true }] }],
  }, { include: [{ model: Project, as: 'projects', include: [{ model: Task, as: 'tasks' }] }] });
  say('ada id>0', ada.id > 0, 'projects', ada.projects.length, 'tasks', ada.projects[0].tasks.length);
  await User.bulkCreate([
    { name: 'grace', email: 'grace@example.com', profile: { city: 'New York' }, balance: 10 },
    { name: 'alan', profile: { city: 'London', langs: ['en'] }, balance: '0.01', status: 'banned' },
  ]);
  const labels = await Label.bulkCreate([{ name: 'hw' }, { name: 'math' }]);
  const engine = await Project.findOne({ where: { title: 'engine' } });
  await engine.addLabels(labels);
  await engine.removeLabel(labels[0]);
  say('engine labels', (await engine.getLabels()).map((l) => l.name).join(','));
  await Label.bulkCreate([{ name: 'math' }, { name: 'sw' }], { ignoreDuplicates: true });
  say('labels', (await Label.findAll({ order: [['name', 'ASC']] })).map((l) => l.name).join(','));

  const londoners = await User.findAll({ where: { profile: { city: 'London' } }, order: [['name', 'ASC']] });
  say('london', londoners.map((u) => u.name).join(','));
  const fr = await User.findAll({ where: { profile: { [Op.contains]: { langs: ['fr'] } } } });
  say('speaks fr', fr.map((u) => u.name).join(','));
  const rich = await User.findAll({ where: { balance: { [Op.gte]: '10.00' } }, order: [['balance', 'DESC']] });
  say('rich', rich.map((u) => `${u.name}:${u.balance}`).join(','));
  const tagged = await User.findAll({ where: { tags: { [Op.overlap]: ['poetry'] } } });
  say('poets', tagged.map((u) => u.name).join(','));
  const loaded = await User.findOne({
    where: { name: 'ada' },
    include: [{ model: Project, as: 'projects', include: [{ model: Task, as: 'tasks' }, { model: Label, as: 'labels' }] }],
    order: [[{ model: Project, as: 'projects' }, { model: Task, as: 'tasks' }, 'title', 'ASC']],
  });
  const p0 = loaded.projects[0];
  say('loaded', loaded.name, canon(loaded.profile), loaded.balance, loaded.status, JSON.stringify(loaded.tags));
  say('project', p0.title, p0.budget, canon(p0.settings), p0.tasks.map((x) => `${x.title}:${x.done}:${x.due}`).join(','), p0.labels.map((l) => l.name).join(','));
  say('banned', (await User.findAll({ where: { status: 'banned' } })).map((u) => u.name).join(','));
  try {
    await User.update({ status: 'gone' }, { where: { name: 'alan' }, validate: false });
    say('bad enum value', 'passed');
  } catch (e) { say('bad enum value', e.name, e.parent && e.parent.code); }
  const { count, rows } = await User.findAndCountAll({ order: [['name', 'ASC']], limit: 2, offset: 1 });
  say('page', count, rows.map((u) => u.name).join(','));
  const agg = await Project.findAll({ attributes: ['ownerId', [sequelize.fn('count', sequelize.col('id')), 'n'], [sequelize.fn('sum', sequelize.col('budget')), 'total']], group: ['ownerId'], raw: true });
  say('agg', agg.map((r) => `${r.n}:${r.total}`).join(','));

  // Updates, increments, JSONB replacement, validation errors.
  await User.update({ profile: { city: 'Paris', langs: ['fr'] } }, { where: { name: 'alan' } });
  await ada.increment('balance', { by: '0.25' });
  await ada.reload();
  say('ada balance', ada.balance);
  try {
    await User.create({ name: 'bad', email: 'not-an-email' });
    say('validation', 'passed');
  } catch (e) { say('validation', e.name); }
  try {
    await User.create({ name: 'ada' });
    say('unique', 'passed');
  } catch (e) { say('unique', e.name, e.parent && e.parent.code); }
  try {
    await Task.create({ title: 'orphan', ProjectId: 424242 });
    say('fk', 'passed');
  } catch (e) { say('fk', e.name, e.parent && e.parent.code); }

  // Managed and unmanaged transactions, a savepoint.
  await sequelize.transaction(async (t) => {
    await User.create({ name: 'edsger', balance: 5 }, { transaction: t });
    await Project.create({ title: 'goto', ownerId: ada.id }, { transaction: t });
  });
  try {
    await sequelize.transaction(async (t) => {
      await User.create({ name: 'never' }, { transaction: t });
      throw new Error('application says no');
    });
  } catch (e) { say('rolled back', e.message); }
  const t = await sequelize.transaction();
  await User.create({ name: 'kept' }, { transaction: t });
  try {
    await sequelize.transaction({ transaction: t }, async (t2) => {
      await User.create({ name: 'dropped' }, { transaction: t2 });
      throw new Error('inner');
    });
  } catch (e) { say('savepoint rolled back', e.message); }
  await t.commit();
  const t3 = await sequelize.transaction();
  await User.update({ balance: 0 }, { where: {}, transaction: t3 });
  await t3.rollback();
  say('users', (await User.findAll({ order: [['name', 'ASC']] })).map((u) => `${u.name}:${u.balance}`).join(','));

  // Paranoid delete, restore, force delete with cascade.
  const grace = await User.findOne({ where: { name: 'grace' } });
  await grace.destroy();
  say('after soft delete', await User.count(), await User.count({ paranoid: false }));
  await grace.restore();
  say('after restore', await User.count());
  await ada.destroy({ force: true });
  say('after cascade', await User.count(), await Project.count(), await Task.count());

  // Upsert.
  const [up] = await User.upsert({ name: 'alan', balance: '42.42' }, { conflictFields: ['name'] });
  say('upsert', up.name, up.balance);

  // sync({alter}): a release adds columns, changes a type and a default.
  ({ User, Project, Task, Label } = define({
    nickname: { type: DataTypes.STRING(40) },
    balance: { type: DataTypes.DECIMAL(14, 2), allowNull: false, defaultValue: 0 },
    score: { type: DataTypes.INTEGER, defaultValue: 7 },
    status: { type: DataTypes.ENUM('active', 'banned', 'suspended'), defaultValue: 'active' },
  }));
  await sequelize.sync({ alter: true });
  await describe('Users');
  await User.update({ status: 'suspended' }, { where: { name: 'alan' } });
  say('statuses', (await User.findAll({ order: [['status', 'ASC'], ['name', 'ASC']] })).map((u) => `${u.name}:${u.status}`).join(','));
  say('users after alter', (await User.findAll({ order: [['name', 'ASC']] })).map((u) => `${u.name}:${u.balance}:${u.score}`).join(','));
  await qi.addColumn('Tasks', 'weight', { type: DataTypes.FLOAT });
  await qi.renameColumn('Tasks', 'weight', 'effort');
  await qi.addIndex('Tasks', ['title', 'done'], { name: 'tasks_title_done' });
  await qi.removeColumn('Tasks', 'effort');
  await describe('Tasks');
  say('indexes Tasks', (await qi.showIndex('Tasks')).map((i) => i.name).sort().join(','));
  await sequelize.drop({});
  say('tables after drop', (await qi.showAllTables()).length);
  await sequelize.close();
  say('OK');
}

main().catch((e) => { console.log('FAILED', e && e.stack, e && e.parent && e.parent.code, e && e.sql); process.exit(1); });

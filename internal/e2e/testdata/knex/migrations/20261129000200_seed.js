// Data in a migration: rows inserted in the same transaction as the DDL.
exports.up = async function (knex) {
  const ids = await knex('authors').insert([
    { name: 'Ada', email: 'ada@example.com' },
    { name: 'Grace', email: 'grace@example.com' }
  ]).returning('id')
  await knex('posts').insert([
    { author_id: ids[0].id, body: 'Notes on the engine', published: true },
    { author_id: ids[1].id, body: 'On compilers', likes: 3 }
  ])
}

exports.down = async function (knex) {
  await knex('authors').whereIn('email', ['ada@example.com', 'grace@example.com']).del()
}

// Command gorm-flow drives GORM (with its pgx-based postgres driver) and
// goose through an ORM application's life against the server named by
// the libpq environment (PGHOST, PGPORT, PGUSER, PGDATABASE). It prints a
// transcript that must be the same on PostgreSQL 15 and on pgproxy
// (internal/e2e TestGORM, TestGoose) and ends with OK.
//
// Usage: gorm-flow gorm|goose MIGRATIONS_DIR
package main

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gorm-flow gorm|goose [MIGRATIONS_DIR]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gorm":
		err = gormFlow()
	case "goose":
		if len(os.Args) < 3 {
			err = errors.New("goose needs the migrations directory")
		} else {
			err = gooseFlow(os.Args[2])
		}
	default:
		err = fmt.Errorf("unknown flow %q", os.Args[1])
	}
	if err != nil {
		fmt.Println("FAILED:", err)
		os.Exit(1)
	}
	fmt.Println("OK")
}

// dsn is the keyword/value connection string of the libpq environment.
func dsn() string {
	return fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable",
		os.Getenv("PGHOST"), os.Getenv("PGPORT"), os.Getenv("PGUSER"), os.Getenv("PGDATABASE"))
}

// The application's models: a has-one, a has-many with a belongs-to back,
// a many-to-many through a join table GORM creates, soft deletes,
// numeric columns written from float64 and string, a jsonb column.
type Author struct {
	ID        uint   `gorm:"primaryKey"`
	Name      string `gorm:"size:80;not null;uniqueIndex"`
	Email     *string
	Profile   Profile
	Posts     []Post
	CreatedAt time.Time
	UpdatedAt time.Time
	DeletedAt gorm.DeletedAt `gorm:"index"`
}

type Profile struct {
	ID       uint   `gorm:"primaryKey"`
	AuthorID uint   `gorm:"uniqueIndex"`
	Bio      string `gorm:"type:text"`
}

type Post struct {
	ID       uint `gorm:"primaryKey"`
	AuthorID uint `gorm:"index;not null"`
	Author   Author
	Title    string          `gorm:"size:200;not null"`
	Price    float64         `gorm:"type:numeric(10,2);not null;default:0"`
	Royalty  string          `gorm:"type:numeric(20,6)"`
	Meta     json.RawMessage `gorm:"type:jsonb"`
	Tags     []Tag           `gorm:"many2many:post_tags;"`
	Views    int64           `gorm:"default:0"`
}

type Tag struct {
	ID   uint   `gorm:"primaryKey"`
	Name string `gorm:"uniqueIndex;size:40"`
}

// PostV2 is Post after a release that adds a column and an index:
// AutoMigrate must alter the existing table.
type PostV2 struct {
	ID       uint            `gorm:"primaryKey"`
	AuthorID uint            `gorm:"index;not null"`
	Title    string          `gorm:"size:200;not null"`
	Price    float64         `gorm:"type:numeric(10,2);not null;default:0"`
	Royalty  string          `gorm:"type:numeric(20,6)"`
	Meta     json.RawMessage `gorm:"type:jsonb"`
	Views    int64           `gorm:"default:0"`
	Slug     string          `gorm:"size:120;index"`
	Rating   *float64        `gorm:"type:numeric(3,1)"`
}

func (PostV2) TableName() string { return "posts" }

func gormFlow() error {
	db, err := gorm.Open(postgres.Open(dsn()), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	defer sqlDB.Close()
	say := func(format string, args ...any) { fmt.Printf(format+"\n", args...) }
	check := func(what string, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}

	// AutoMigrate twice: the second run reads the catalogs and must find
	// nothing to change.
	models := []any{&Author{}, &Profile{}, &Post{}, &Tag{}}
	if err := check("automigrate", db.AutoMigrate(models...)); err != nil {
		return err
	}
	if err := check("automigrate again", db.AutoMigrate(models...)); err != nil {
		return err
	}
	m := db.Migrator()
	for _, tbl := range []string{"authors", "profiles", "posts", "tags", "post_tags"} {
		say("table %s exists=%v", tbl, m.HasTable(tbl))
	}
	say("index idx_authors_name=%v", m.HasIndex(&Author{}, "idx_authors_name"))
	say("constraint fk_authors_posts=%v", m.HasConstraint(&Post{}, "fk_authors_posts"))
	cols, err := m.ColumnTypes(&Post{})
	if err != nil {
		return fmt.Errorf("column types: %w", err)
	}
	// GORM's column query has no ORDER BY: the order rows come in is
	// the server's join order, which pgproxy does not promise to share.
	sort.Slice(cols, func(i, j int) bool { return cols[i].Name() < cols[j].Name() })
	for _, c := range cols {
		nullable, _ := c.Nullable()
		pk, _ := c.PrimaryKey()
		length, _ := c.Length()
		prec, scale, _ := c.DecimalSize()
		def, _ := c.DefaultValue()
		say("posts.%s %s nullable=%v pk=%v length=%d numeric=%d,%d default=%q", c.Name(), c.DatabaseTypeName(), nullable, pk, length, prec, scale, def)
	}

	// Create with associations: has-one, has-many, many-to-many.
	email := "ada@example.com"
	math := Tag{Name: "math"}
	if err := check("create tag", db.Create(&math).Error); err != nil {
		return err
	}
	ada := Author{Name: "ada", Email: &email, Profile: Profile{Bio: "first programmer"},
		Posts: []Post{
			{Title: "notes on the engine", Price: 12.5, Royalty: "0.125000", Meta: json.RawMessage(`{"lang":"en","pages":42}`), Tags: []Tag{math, {Name: "history"}}},
			{Title: "bernoulli numbers", Price: 3.99, Royalty: "1.5", Meta: json.RawMessage(`{"lang":"fr","pages":7}`), Tags: []Tag{math}},
		}}
	if err := check("create ada", db.Create(&ada).Error); err != nil {
		return err
	}
	// "math" is one tag row shared by both posts.
	var tagCount int64
	db.Model(&Tag{}).Count(&tagCount)
	say("tags after create=%d", tagCount)
	grace := Author{Name: "grace", Posts: []Post{{Title: "compilers", Price: 100, Royalty: "99999999999999.999999", Meta: json.RawMessage(`{"lang":"en","tags":["cobol"]}`)}}}
	if err := check("create grace", db.Create(&grace).Error); err != nil {
		return err
	}
	say("ids positive=%v", ada.ID > 0 && grace.ID > ada.ID && ada.Posts[0].ID > 0 && ada.Profile.ID > 0)

	// Batch insert.
	batch := []Tag{{Name: "b1"}, {Name: "b2"}, {Name: "b3"}}
	if err := check("batch", db.CreateInBatches(batch, 2).Error); err != nil {
		return err
	}
	say("batch ids set=%v", batch[0].ID > 0 && batch[2].ID > batch[0].ID)

	// Reads: preload of every association, joins, jsonb and numeric filters.
	var authors []Author
	if err := check("preload", db.Preload("Profile").Preload("Posts", func(tx *gorm.DB) *gorm.DB { return tx.Order("title") }).Preload("Posts.Tags", func(tx *gorm.DB) *gorm.DB { return tx.Order("name") }).Order("name").Find(&authors).Error); err != nil {
		return err
	}
	for _, a := range authors {
		em := "<nil>"
		if a.Email != nil {
			em = *a.Email
		}
		say("author %s email=%s bio=%q posts=%d", a.Name, em, a.Profile.Bio, len(a.Posts))
		for _, p := range a.Posts {
			var tags []string
			for _, tg := range p.Tags {
				tags = append(tags, tg.Name)
			}
			say("  post %q price=%v royalty=%s meta=%s tags=%v", p.Title, p.Price, p.Royalty, compactJSON(p.Meta), tags)
		}
	}
	var titles []string
	if err := check("jsonb filter", db.Model(&Post{}).Where("meta->>'lang' = ?", "en").Order("title").Pluck("title", &titles).Error); err != nil {
		return err
	}
	say("english posts=%v", titles)
	titles = nil
	if err := check("jsonb containment", db.Model(&Post{}).Where("meta @> ?", `{"pages":7}`).Pluck("title", &titles).Error); err != nil {
		return err
	}
	say("posts with 7 pages=%v", titles)
	var cheap []Post
	if err := check("numeric filter", db.Where("price < ?", 20).Where("royalty >= ?", "0.1").Order("price").Find(&cheap).Error); err != nil {
		return err
	}
	say("cheap posts=%d first=%q", len(cheap), firstTitle(cheap))
	type row struct {
		Name  string
		Total float64
		N     int
	}
	var totals []row
	if err := check("join group", db.Model(&Post{}).Select("authors.name, sum(posts.price) as total, count(*) as n").Joins("JOIN authors ON authors.id = posts.author_id").Group("authors.name").Having("count(*) >= ?", 1).Order("authors.name").Scan(&totals).Error); err != nil {
		return err
	}
	for _, r := range totals {
		say("total %s=%.2f n=%d", r.Name, r.Total, r.N)
	}
	var withAuthor Post
	if err := check("joins preload", db.Joins("Author").Where("title = ?", "compilers").First(&withAuthor).Error); err != nil {
		return err
	}
	say("compilers by %s", withAuthor.Author.Name)

	// Updates: a column, an expression, a map, Save of a whole row.
	if err := check("update", db.Model(&Post{}).Where("title = ?", "compilers").Update("views", gorm.Expr("views + ?", 5)).Error); err != nil {
		return err
	}
	if err := check("updates map", db.Model(&withAuthor).Updates(map[string]any{"price": 101.25, "meta": json.RawMessage(`{"lang":"en","edition":2}`)}).Error); err != nil {
		return err
	}
	withAuthor.Views += 10
	if err := check("save", db.Omit("Author").Save(&withAuthor).Error); err != nil {
		return err
	}
	var reread Post
	db.First(&reread, withAuthor.ID)
	say("compilers views=%d price=%v meta=%s", reread.Views, reread.Price, compactJSON(reread.Meta))

	// Upsert on the unique tag name.
	up := Tag{Name: "math"}
	if err := check("upsert", db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "name"}}, DoNothing: true}).Create(&up).Error); err != nil {
		return err
	}
	var found Tag
	if err := check("first or create", db.Where(Tag{Name: "logic"}).FirstOrCreate(&found).Error); err != nil {
		return err
	}
	db.Model(&Tag{}).Count(&tagCount)
	say("tags after upsert=%d logic created=%v", tagCount, found.ID > 0)

	// Association mode on the join table.
	var logic Tag
	db.Where("name = ?", "logic").First(&logic)
	if err := check("append association", db.Model(&reread).Association("Tags").Append(&logic)); err != nil {
		return err
	}
	say("compilers tags=%d", db.Model(&reread).Association("Tags").Count())
	if err := check("delete association", db.Model(&reread).Association("Tags").Delete(&logic)); err != nil {
		return err
	}
	say("compilers tags after delete=%d", db.Model(&reread).Association("Tags").Count())

	// Transactions: commit, rollback on error, a nested savepoint rolled
	// back inside a committed transaction, a unique violation.
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Author{Name: "edsger"}).Error; err != nil {
			return err
		}
		return tx.Model(&Post{}).Where("title = ?", "bernoulli numbers").Update("price", 4.5).Error
	})
	if err := check("tx commit", err); err != nil {
		return err
	}
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Author{Name: "never"}).Error; err != nil {
			return err
		}
		return errors.New("application says no")
	})
	say("tx rollback error=%v", err)
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Author{Name: "outer"}).Error; err != nil {
			return err
		}
		inner := tx.Transaction(func(tx2 *gorm.DB) error {
			if err := tx2.Create(&Author{Name: "inner"}).Error; err != nil {
				return err
			}
			return errors.New("inner fails")
		})
		say("nested rollback error=%v", inner)
		return nil
	})
	if err := check("tx nested", err); err != nil {
		return err
	}
	dup := db.Create(&Author{Name: "ada"}).Error
	say("duplicate name fails=%v constraint=%v", dup != nil, dup != nil && strings.Contains(dup.Error(), "23505"))
	var names []string
	db.Model(&Author{}).Order("name").Pluck("name", &names)
	say("authors=%v", names)

	// Manual transaction with Begin/Rollback.
	tx := db.Begin()
	tx.Model(&Post{}).Where("1 = 1").Update("views", 999)
	tx.Rollback()
	var maxViews int64
	db.Model(&Post{}).Select("coalesce(max(views), 0)").Scan(&maxViews)
	say("max views after rollback=%d", maxViews)

	// Soft delete, unscoped reads, hard delete with cascade by hand.
	var edsger Author
	db.Where("name = ?", "edsger").First(&edsger)
	if err := check("soft delete", db.Delete(&edsger).Error); err != nil {
		return err
	}
	var visible, all int64
	db.Model(&Author{}).Count(&visible)
	db.Unscoped().Model(&Author{}).Count(&all)
	say("authors visible=%d all=%d", visible, all)
	if err := check("hard delete", db.Unscoped().Delete(&edsger).Error); err != nil {
		return err
	}
	db.Unscoped().Model(&Author{}).Count(&all)
	say("authors after hard delete=%d", all)
	fk := db.Unscoped().Delete(&Author{}, ada.ID).Error
	say("delete referenced author fails=%v fk=%v", fk != nil, fk != nil && strings.Contains(fk.Error(), "23503"))

	// A release later: AutoMigrate adds a column and an index.
	if err := check("automigrate v2", db.AutoMigrate(&PostV2{})); err != nil {
		return err
	}
	say("posts.slug exists=%v rating exists=%v", m.HasColumn(&PostV2{}, "slug"), m.HasColumn(&PostV2{}, "rating"))
	say("index idx_posts_slug=%v", m.HasIndex(&PostV2{}, "idx_posts_slug"))
	if err := check("fill slug", db.Model(&PostV2{}).Where("slug IS NULL OR slug = ''").Update("slug", gorm.Expr("lower(replace(title, ' ', '-'))")).Error); err != nil {
		return err
	}
	rating := 4.5
	if err := check("rating", db.Model(&PostV2{}).Where("title = ?", "compilers").Update("rating", &rating).Error); err != nil {
		return err
	}
	var v2 []PostV2
	db.Order("slug").Find(&v2)
	for _, p := range v2 {
		r := "<nil>"
		if p.Rating != nil {
			r = fmt.Sprint(*p.Rating)
		}
		say("v2 %s rating=%s", p.Slug, r)
	}
	// Renames and drops through the migrator.
	if err := check("rename column", m.RenameColumn(&PostV2{}, "rating", "score")); err != nil {
		return err
	}
	say("rating renamed=%v", m.HasColumn(&PostV2{}, "score") && !m.HasColumn(&PostV2{}, "rating"))
	if err := check("drop column", m.DropColumn(&PostV2{}, "score")); err != nil {
		return err
	}
	if err := check("drop index", m.DropIndex(&PostV2{}, "idx_posts_slug")); err != nil {
		return err
	}
	say("after drops index=%v column=%v", m.HasIndex(&PostV2{}, "idx_posts_slug"), m.HasColumn(&PostV2{}, "score"))
	if err := check("drop join table", m.DropTable("post_tags")); err != nil {
		return err
	}
	say("post_tags exists=%v", m.HasTable("post_tags"))
	return nil
}

func firstTitle(ps []Post) string {
	if len(ps) == 0 {
		return ""
	}
	return ps[0].Title
}

// compactJSON prints a jsonb value with sorted keys, as both servers
// normalize jsonb the same way but a driver may pass it through as text.
func compactJSON(b json.RawMessage) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "invalid:" + string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// gooseFlow applies the SQL migrations of dir with goose over pgx's
// database/sql driver: up one by one, status, down, up again, a failing
// migration rolled back, and the version table's content.
func gooseFlow(dir string) error {
	db, err := sql.Open("pgx", dsn())
	if err != nil {
		return err
	}
	defer db.Close()
	_ = stdlib.GetDefaultDriver()
	goose.SetLogger(goose.NopLogger())
	if err := goose.SetDialect("postgres"); err != nil {
		return err
	}
	say := func(format string, args ...any) { fmt.Printf(format+"\n", args...) }
	good := dir + "/ok"
	if err := goose.UpByOne(db, good); err != nil {
		return fmt.Errorf("up by one: %w", err)
	}
	v, err := goose.GetDBVersion(db)
	if err != nil {
		return err
	}
	say("version after one=%d", v)
	if err := goose.Up(db, good); err != nil {
		return fmt.Errorf("up: %w", err)
	}
	v, _ = goose.GetDBVersion(db)
	say("version after up=%d", v)
	if err := report(db, say); err != nil {
		return err
	}
	if err := goose.Down(db, good); err != nil {
		return fmt.Errorf("down: %w", err)
	}
	v, _ = goose.GetDBVersion(db)
	say("version after down=%d", v)
	if err := goose.DownTo(db, good, 0); err != nil {
		return fmt.Errorf("down to 0: %w", err)
	}
	v, _ = goose.GetDBVersion(db)
	say("version after reset=%d", v)
	if err := goose.Up(db, good); err != nil {
		return fmt.Errorf("up again: %w", err)
	}
	// A migration whose second statement fails: goose runs it in one
	// transaction, so its first statement must not survive.
	bad := dir + "/bad"
	err = goose.Up(db, bad, goose.WithAllowMissing())
	say("bad migration fails=%v", err != nil)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_catalog.pg_class WHERE relname = 'half_done'`).Scan(&n); err != nil {
		return err
	}
	say("half_done tables=%d", n)
	v, _ = goose.GetDBVersion(db)
	say("version after bad=%d", v)
	rows, err := db.Query(`SELECT version_id, is_applied FROM goose_db_version ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var log []string
	for rows.Next() {
		var id int64
		var applied bool
		if err := rows.Scan(&id, &applied); err != nil {
			return err
		}
		log = append(log, fmt.Sprintf("%d:%v", id, applied))
	}
	say("goose_db_version=%s", strings.Join(log, " "))
	return rows.Err()
}

// report prints the tables and rows the migrations made.
func report(db *sql.DB, say func(string, ...any)) error {
	rows, err := db.Query(`SELECT table_name, column_name, data_type, is_nullable, coalesce(column_default, '') FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'goose_db_version' ORDER BY table_name, ordinal_position`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var t, c, dt, nullable, def string
		if err := rows.Scan(&t, &c, &dt, &nullable, &def); err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("column %s.%s %s %s %s", t, c, dt, nullable, def))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	sort.Strings(lines)
	for _, l := range lines {
		say("%s", l)
	}
	var users, orders int
	var spent string
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM orders), (SELECT sum(amount)::text FROM orders)`).Scan(&users, &orders, &spent); err != nil {
		return err
	}
	say("users=%d orders=%d spent=%s", users, orders, spent)
	return nil
}

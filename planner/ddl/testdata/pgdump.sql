CREATE TABLE public.users (
    id integer NOT NULL,
    email character varying(255) NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);
ALTER TABLE public.users OWNER TO app;
CREATE SEQUENCE public.users_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE public.users_id_seq OWNER TO app;
ALTER SEQUENCE public.users_id_seq OWNED BY public.users.id;
ALTER TABLE ONLY public.users ALTER COLUMN id SET DEFAULT nextval('public.users_id_seq'::regclass);
ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_email_unique UNIQUE (email);
CREATE INDEX users_created_at_index ON public.users USING btree (created_at);
COMMENT ON SCHEMA public IS 'standard public schema';
GRANT ALL ON TABLE public.users TO app;
DROP TABLE public.users;
DROP SEQUENCE public.users_id_seq;
CREATE TABLE public.person (
    id integer NOT NULL
);
CREATE TABLE public.knows (
    a integer NOT NULL,
    b integer NOT NULL,
    since integer
)
WITH ("graph.kind"=edge, "graph.source"=a, "graph.target"=b, "graph.max_out"='5');
ALTER TABLE ONLY public.person
    ADD CONSTRAINT person_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.knows
    ADD CONSTRAINT knows_a_fkey FOREIGN KEY (a) REFERENCES public.person(id);
ALTER TABLE ONLY public.knows
    ADD CONSTRAINT knows_b_fkey FOREIGN KEY (b) REFERENCES public.person(id);
ALTER TABLE public.knows DROP CONSTRAINT knows_a_fkey;
ALTER TABLE public.knows SET (graph.kind = relation);
ALTER TABLE public.knows SET (graph.kind = edge);
CREATE TABLE public.half (src int REFERENCES public.person(id), dst int) WITH (graph.kind = edge);
CREATE TABLE public.wrong (src int REFERENCES public.knows(since), dst int REFERENCES public.knows(since)) WITH (graph.kind = edge);
